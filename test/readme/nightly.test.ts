import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.ts';
import { docPage } from '../helpers/docs.ts';

/*
 * The nightly recipe of docs/ci-and-nightly.md, run as written: its `nightly.sh` block, word for word, three nights
 * in a row in one folder, on the model. Only the machine around it is staged: `date` answers the
 * night's date, `npx stampede` is the development CLI, and short steps come from STAMPEDE_STEP and
 * STAMPEDE_WARMUP (the job-wide environment a CI would set). Night 2 deploys a build with fewer
 * cache shards (STAMPEDE_SET); night 3 is cut short by SIGTERM during its search, as a job's
 * timeout would.
 */

const PAGE = docPage('docs/ci-and-nightly.md');

/** The ```sh block right after "`nightly.sh`:". */
function nightlyScript(): string {
  const text = PAGE.text;
  const at = text.indexOf('`nightly.sh`:');
  const start = text.indexOf('```sh\n', at);
  const end = text.indexOf('\n```\n', start);
  if (at < 0 || start < 0 || end < 0) throw new Error(`${PAGE.file}: no \`\`\`sh block after \`nightly.sh\`:`);
  return text.slice(start + '```sh\n'.length, end + 1);
}

const scratch = mkdtempSync(join(tmpdir(), 'stampede-nightly-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const bin = join(scratch, 'bin');
const pids = join(scratch, 'pids');
const cwd = join(scratch, 'capacity');

/** npx runs the development CLI and leaves each command's pid in pids/<command>; date -u +%F is the night's. */
function stage(): void {
  for (const dir of [bin, pids, cwd]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh\n[ "$1" = stampede ] || exit 127\nshift\necho $$ > "${pids}/$1"\nexec "${process.execPath}" "${join(repoRoot, 'scripts/stampede-dev.js')}" "$@"\n`,
    { mode: 0o755 },
  );
  writeFileSync(join(bin, 'date'), '#!/bin/sh\n[ "$*" = "-u +%F" ] && { echo "$NIGHT"; exit 0; }\nexec /bin/date "$@"\n', { mode: 0o755 });
  symlinkSync(join(repoRoot, 'profiles'), join(cwd, 'profiles'));
  writeFileSync(join(cwd, 'nightly.sh'), nightlyScript());
}

interface Night {
  /** The script's exit code: the job's outcome. */
  code: number | null;
  stderr: string;
}

/** One night: `sh nightly.sh` with the night's date; `during` runs once the script is under way. */
function night(date: string, env: Record<string, string>, during?: () => Promise<void>): Promise<Night> {
  rmSync(join(pids, 'qualify'), { force: true });
  return new Promise((resolve) => {
    const child = spawn('sh', ['nightly.sh'], {
      cwd,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NIGHT: date, STAMPEDE_STEP: '1s', STAMPEDE_WARMUP: '500ms', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stderr }));
    void during?.();
  });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 100) {
    if (waited > 300_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const nightly = (...path: string[]) => join(cwd, 'reports', 'nightly', ...path);
const trend = (file: string) => readFileSync(join(cwd, 'reports', 'nightly-trend', file), 'utf8');
const badges = () => [...trend('history.html').matchAll(/<span class="verdict ([\w-]+)">([^<]*)<\/span>/g)].map((m) => m[2]);

describe('the docs’ nightly recipe, three nights as written', { timeout: 600_000 }, () => {
  it('a good night, a regressed one, a cut-short one: each with its exit code, compare’s words and history’s badge', async () => {
    stage();
    expect(nightlyScript()).toMatch(/^#!\/bin\/sh\n/);

    // Night 1: nothing to compare with; it passes and becomes the last good night.
    const first = await night('2026-01-01', {});
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(nightly('LAST_GOOD'), 'utf8').trim()).toBe('reports/nightly/2026-01-01');
    expect(existsSync(nightly('2026-01-01', 'compare.md'))).toBe(false);
    expect(existsSync(nightly('2026-01-01', 'junit.xml'))).toBe(true);
    expect(badges()).toEqual(['PASS']);

    // Night 2: a build with 14 cache shards instead of 20. Its own verdict still passes (capacity
    // covers the peak), but compare against night 1 catches the lost capacity and fails the job.
    const second = await night('2026-01-02', { STAMPEDE_SET: 'topology.caches.tweet-cache.shards=14' });
    expect(second.code).toBe(1);
    const q2 = JSON.parse(readFileSync(nightly('2026-01-02', 'qualification.json'), 'utf8'));
    expect(q2.profile.overrides).toEqual(['topology.caches.tweet-cache.shards=14']);
    expect(q2.verdict).toBe('PASS');
    const regressed = readFileSync(nightly('2026-01-02', 'compare.md'), 'utf8');
    expect(regressed).toMatch(/^# compare: REGRESSED \(capacity\b/);
    expect(regressed).toContain('baseline `2026-01-01` (qualification, PASS');
    expect(regressed).toMatch(/\| p99 at 12000 rps /);
    expect(readFileSync(nightly('LAST_GOOD'), 'utf8').trim()).toBe('reports/nightly/2026-01-01');
    expect(badges()[0]).toBe('PASS');
    expect(badges()[1]).toMatch(/^REGRESSED: capacity\b/);
    expect(trend('history.md')).toMatch(/- latest night of steady-peak: `2026-01-02`, \*\*PASS\*\*, \*\*REGRESSED: capacity\b/);

    // Night 3: the build is back, but the job is stopped (SIGTERM) after the search's first step.
    const third = await night('2026-01-03', {}, async () => {
      await until(() => existsSync(join(pids, 'qualify')) && stepsDone(nightly('2026-01-03')) >= 1, 'the first step of night 3');
      process.kill(Number(readFileSync(join(pids, 'qualify'), 'utf8')), 'SIGTERM');
    });
    expect(third.code).toBe(1);
    const q3 = JSON.parse(readFileSync(nightly('2026-01-03', 'qualification.json'), 'utf8'));
    expect(q3).toMatchObject({ verdict: 'INVALID', interrupted: true });
    const cut = readFileSync(nightly('2026-01-03', 'compare.md'), 'utf8');
    expect(cut).toMatch(/^# compare: not comparable \(candidate INVALID, interrupted\)/);
    expect(cut).toContain('- the candidate `2026-01-03` is no evidence: interrupted after');
    expect(cut).not.toContain('REGRESSED');
    expect(readFileSync(nightly('LAST_GOOD'), 'utf8').trim()).toBe('reports/nightly/2026-01-01');
    // The badge is the latest night's verdict: INVALID, not green, and nothing beside it.
    expect(badges()).toEqual(['INVALID']);
    const history = trend('history.md');
    expect(history).toContain('- latest night of steady-peak: `2026-01-03`, **INVALID**, not comparable');
    const rows = history.split('\n').filter((l) => l.startsWith('| 2026-'));
    expect(rows.map((r) => r.split('|')[1]!.trim())).toEqual(['2026-01-01', '2026-01-02', '2026-01-03']);
    expect(rows[1]).toContain('**REGRESSED: capacity');
    expect(rows[2]).toMatch(/\| not comparable: interrupted after/);
    // A missing figure is never 0: every night's capacity reads as a bracket.
    for (const row of rows) expect(row).toMatch(/\| (\d+ rps|none) \(fails at \d+\)|≥ \d+ rps/);
  });
});

/** Steps of a qualification folder whose result.json is written. */
function stepsDone(dir: string): number {
  const steps = join(dir, 'steps');
  if (!existsSync(steps)) return 0;
  return readdirSync(steps).filter((s) => existsSync(join(steps, s, 'result.json'))).length;
}
