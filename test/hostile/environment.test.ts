import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';

/*
 * Hostile inputs, class "environment": a CI job's environment is shared by every command it runs.
 * A STAMPEDE_* variable a command does not take changes nothing for it; one no command takes is a
 * likely typo, worth exactly one warning line and never a different exit code.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-hostile-environment-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SMALL = 'test/fixtures/cli/small.yaml';
/** Two nights, the second regressed; and a folder of one night alone. */
const runs = join(scratch, 'nightly');
const baseline = join(runs, 'a');
const regressed = join(runs, 'b');
const oneNight = join(scratch, 'one-night');
const junit = join(scratch, 'junit.xml');
const TYPO_WARNING = 'stampede: STAMPEDE_TYPO names no option of any command: ignored (a typo?)\n';

beforeAll(() => {
  expect(stampede(['run', SMALL, '--out', baseline, '--quiet']).status).toBe(0);
  // Twice the rate on the same 8 workers: p50 and p99 regress beyond their confidence intervals.
  expect(stampede(['run', SMALL, '--set', 'phases[0].rate=7500', '--out', regressed, '--quiet']).status).toBe(0);
  cpSync(baseline, join(oneNight, 'a'), { recursive: true });
}, 180_000);

describe('STAMPEDE_JUNIT set job-wide for the runs', { timeout: 120_000 }, () => {
  it('is ignored by compare, whatever it finds: exit 0 for the same run, 1 for a regression, no JUnit file, nothing on stderr', () => {
    const env = { STAMPEDE_JUNIT: junit };
    const same = stampede(['compare', baseline, baseline], 60_000, env);
    expect([same.status, same.stderr]).toEqual([0, '']);
    const worse = stampede(['compare', baseline, regressed], 60_000, env);
    expect([worse.status, worse.stderr]).toEqual([1, '']);
    expect(worse.stdout.split('\n')[0]).toBe('# compare: REGRESSED (p50, p99, p99.9)');
    expect(existsSync(junit)).toBe(false);
  });

  it('is ignored by history: exit 0 for one night, 1 for a regressed night, its files written where they go, no JUnit file', () => {
    const env = { STAMPEDE_JUNIT: junit };
    const quiet = stampede(['history', oneNight], 60_000, env);
    expect([quiet.status, quiet.stderr]).toEqual([0, '']);
    expect(readdirSync(oneNight).filter((f) => f.startsWith('history.'))).toEqual(['history.html', 'history.md']);
    const worse = stampede(['history', runs, '--out', join(scratch, 'trend')], 60_000, env);
    expect([worse.status, worse.stderr]).toEqual([1, '']);
    expect(worse.stdout).toContain('**1 run(s) regressed**');
    expect(existsSync(junit)).toBe(false);
  });
});

describe('an unknown STAMPEDE_TYPO', { timeout: 180_000 }, () => {
  it('is one warning line on stderr and the same exit code, for every kind of outcome', () => {
    const cases: [args: string[], exit: number][] = [
      [['validate', SMALL], 0],
      [['compare', baseline, baseline], 0],
      [['compare', baseline, regressed], 1],
      [['history', oneNight, '--out', join(scratch, 'history')], 0],
      [['history', runs, '--out', join(scratch, 'history')], 1],
      [['run', SMALL, '--set', 'phases[0].rate=-1'], 2],
      [['run', SMALL, '--out', join(scratch, 'typo-run'), '--quiet'], 0],
    ];
    for (const [args, exit] of cases) {
      const plain = stampede(args, 120_000);
      const typo = stampede(
        args.map((a) => a.replace('typo-run', 'typo-run-2')),
        120_000,
        { STAMPEDE_TYPO: 'x' },
      );
      const what = args.join(' ');
      expect([plain.status, typo.status], what).toEqual([exit, exit]);
      expect(typo.stderr, what).toBe(TYPO_WARNING + plain.stderr);
      expect(typo.stderr.split(TYPO_WARNING).length - 1, what).toBe(1);
    }
  });
});
