import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProfile } from '../src/pipeline/run.ts';
import { loadProfile } from '../src/profile/index.ts';
import { qualify } from '../src/qualify/qualify.ts';
import type { Qualification } from '../src/analysis/qualification.ts';
import type { RunResult } from '../src/recorder/result.ts';
import { renderQualificationReports } from '../src/report/qualification-report.ts';
import { writeReports } from '../src/run-folder/index.ts';

/** The incident profiles whose reports are committed under reports/examples/. */
export const EXAMPLE_PROFILES = ['viral-hot-key', 'sudden-spike', 'black-friday', 'bluesky-20k-batch'] as const;

/** Examples are byte-stable: wall-clock fields are replaced by this. */
export const FIXED_TIME = '2026-01-01T00:00:00.000Z';

/** Qualification steps of the examples: short, since the model reaches steady state fast. */
export const EXAMPLE_STEP = { stepUs: 5_000_000, warmupUs: 2_000_000 };

/**
 * Writes `<outRoot>/<name>/run/` (report.md, report.html, result.json and analysis.json of the profile as shipped)
 * and `<outRoot>/<name>/qualify/` (report.md, report.html, qualification.json) for one profile,
 * with wall-clock fields fixed so the output depends only on the code and the profile.
 */
export async function buildExample(name: string, outRoot: string, profilesDir = 'profiles'): Promise<void> {
  const profile = await loadProfile(join(profilesDir, `${name}.yaml`));
  const scratch = mkdtempSync(join(tmpdir(), `stampede-example-${name}-`));
  try {
    const runDir = join(outRoot, name, 'run');
    mkdirSync(runDir, { recursive: true });
    const { dir } = await runProfile(profile, { outDir: join(scratch, 'run') });
    for (const file of ['report.md', 'report.html', 'analysis.json']) copyFileSync(join(dir, file), join(runDir, file));
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
    writeFileSync(join(runDir, 'result.json'), `${JSON.stringify({ ...result, startedAt: FIXED_TIME, wall: { finishedAt: FIXED_TIME, elapsedMs: 0 } }, null, 2)}\n`);

    const qualifyDir = join(outRoot, name, 'qualify');
    mkdirSync(qualifyDir, { recursive: true });
    const q = await qualify(profile, { outDir: join(scratch, 'qualify'), ...EXAMPLE_STEP });
    const fixed: Qualification = { ...q, startedAt: FIXED_TIME, wall: { finishedAt: FIXED_TIME, elapsedMs: 0 } };
    writeFileSync(join(qualifyDir, 'qualification.json'), `${JSON.stringify(fixed, null, 2)}\n`);
    writeReports(qualifyDir, renderQualificationReports(fixed));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
