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
import { compareRuns } from '../src/analysis/compare.ts';
import { buildHistory } from '../src/analysis/history.ts';
import { renderComparison } from '../src/report/compare-report.ts';
import { renderHistory } from '../src/report/history-report.ts';
import { findSnapshotDirs, loadSnapshot } from '../src/run-folder/snapshot.ts';

/** The incident profiles whose reports are committed under reports/examples/. */
export const EXAMPLE_PROFILES = ['viral-hot-key', 'sudden-spike', 'black-friday', 'bluesky-20k-batch'] as const;

/** Every folder of reports/examples/: the incident profiles, and the nightly capacity reports. */
export const EXAMPLE_NAMES = [...EXAMPLE_PROFILES, 'nightly'] as const;

/**
 * The nightly example: `qualify` of one profile each night (a new seed each night, as a fresh
 * build would see), short steps to keep it fast; one night a change loses capacity (fewer cache
 * shards), which the verdict alone does not show (it still passes) but `compare` against the last
 * good night and `history` catch.
 */
export const NIGHTLY = {
  profile: 'steady-peak',
  nights: ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04'],
  /** The night with the planted regression, and the override that plants it. */
  regressed: { night: '2026-01-04', set: 'topology.caches.tweet-cache.shards=14' },
  step: { stepUs: 1_000_000, warmupUs: 500_000 },
} as const;

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

/** Builds any example by name: an incident profile's folder, or `nightly`. */
export async function buildNamedExample(name: string, outRoot: string): Promise<void> {
  if (name === 'nightly') await buildNightlyExample(outRoot);
  else await buildExample(name, outRoot);
}

/**
 * Writes `<outRoot>/nightly/<date>/` (qualification.json, report.md, report.html of each night,
 * started at 02:00 UTC that night), `history.md` and `history.html` over the nights, and
 * `compare.md`: the regressed night against the night before it. The step folders stay in scratch:
 * history and compare read them there, the committed example keeps only the reports.
 */
export async function buildNightlyExample(outRoot: string, profilesDir = 'profiles'): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'stampede-example-nightly-'));
  const out = join(outRoot, 'nightly');
  try {
    for (const [i, night] of NIGHTLY.nights.entries()) {
      const overrides = [`seed=${i + 1}`, ...(night === NIGHTLY.regressed.night ? [NIGHTLY.regressed.set] : [])];
      const profile = await loadProfile(join(profilesDir, `${NIGHTLY.profile}.yaml`), overrides);
      const q = await qualify(profile, { outDir: join(scratch, night), ...NIGHTLY.step });
      const startedAt = `${night}T02:00:00.000Z`;
      const fixed: Qualification = { ...q, startedAt, wall: { finishedAt: startedAt, elapsedMs: 0 } };
      for (const dir of [join(scratch, night), join(out, night)]) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'qualification.json'), `${JSON.stringify(fixed, null, 2)}\n`);
        writeReports(dir, renderQualificationReports(fixed));
      }
    }
    const { markdown, html } = renderHistory(buildHistory(findSnapshotDirs(scratch).dirs.map(loadSnapshot)));
    writeFileSync(join(out, 'history.md'), markdown);
    writeFileSync(join(out, 'history.html'), html);
    const lastGood = NIGHTLY.nights[NIGHTLY.nights.indexOf(NIGHTLY.regressed.night) - 1]!;
    writeFileSync(join(out, 'compare.md'), renderComparison(compareRuns(loadSnapshot(join(scratch, lastGood)), loadSnapshot(join(scratch, NIGHTLY.regressed.night)))));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
