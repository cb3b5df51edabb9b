import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/analysis/compare.ts';
import { compareCapacity, compareErrorRates, quantileWithInterval } from '../../src/analysis/quantile-ci.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { newHistogram } from '../../src/recorder/histograms.ts';
import { buildHistory } from '../../src/analysis/history.ts';
import { renderHistory } from '../../src/report/history-report.ts';
import { findSnapshotDirs, loadSnapshot } from '../../src/run-folder/snapshot.ts';
import { stampede } from '../helpers/cli.ts';
import { makeProfile } from '../helpers/profile.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-compare-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function uniform(n: number): ReturnType<typeof newHistogram> {
  const h = newHistogram();
  for (let i = 1; i <= n; i++) h.recordValue(Math.round((i * 10_000) / n));
  return h;
}

describe('noise margins from the histograms', () => {
  it('the quantile interval holds the quantile and narrows as samples grow', () => {
    const small = quantileWithInterval(uniform(200), 99);
    const large = quantileWithInterval(uniform(200_000), 99);
    for (const e of [small, large]) {
      expect(e.lowUs).toBeLessThanOrEqual(e.valueUs);
      expect(e.highUs).toBeGreaterThanOrEqual(e.valueUs);
    }
    expect(large.highUs - large.lowUs).toBeLessThan((small.highUs - small.lowUs) / 10);
    // p99.9 from 2,000 samples: the interval reaches the maximum.
    expect(quantileWithInterval(uniform(2000), 99.9).highUs).toBe(uniform(2000).maxValue);
  });

  it('error rates differ only beyond the two-proportion test', () => {
    expect(compareErrorRates({ failed: 10, total: 100_000 }, { failed: 14, total: 100_000 }).change).toBe('same');
    expect(compareErrorRates({ failed: 10, total: 100_000 }, { failed: 200, total: 100_000 }).change).toBe('regressed');
    expect(compareErrorRates({ failed: 200, total: 100_000 }, { failed: 10, total: 100_000 }).change).toBe('improved');
  });

  it('a qualification comparison puts capacity and failover first, and either regressing fails it', () => {
    const base = { label: 'a', requests: { failed: 0, total: 1000 }, capacity: { pass: 5000, fail: 5300, failoverPass: true } };
    const worse = { label: 'b', requests: { failed: 0, total: 1000 }, capacity: { pass: 3000, fail: 4000, failoverPass: false } };
    const c = compareRuns(base, worse);
    expect(c.rows.map((r) => [r.metric, r.change])).toEqual([
      ['capacity', 'regressed'],
      ['failover (N+1)', 'regressed'],
      ['error rate', 'same'],
    ]);
    expect(c.regressed).toBe(true);
    expect(compareRuns(base, { ...base, label: 'c' }).regressed).toBe(false);
  });

  it('capacity regressed only when the candidate failed where the baseline held', () => {
    expect(compareCapacity({ pass: 5000, fail: 5300 }, { pass: 4900, fail: 5200 })).toBe('same');
    expect(compareCapacity({ pass: 5000, fail: 5300 }, { pass: 3000, fail: 4000 })).toBe('regressed');
    expect(compareCapacity({ pass: 3000, fail: 4000 }, { pass: 5000, fail: 5300 })).toBe('improved');
  });
});

// M/M/8 at utilisation 0.5; a "slow night" doubles the service time (utilisation 1.0 would not be stable, so 1.6 ms: 0.8).
const night = (seed: number, meanMs = 1, name = 'nightly') =>
  makeProfile({
    name,
    seed,
    warmup: '500ms',
    phases: [{ type: 'steady', rate: 4000, duration: '3s' }],
    slo: { latency: [{ percentile: 99, max: '50ms' }], errorRate: 0.01 },
    topology: { entry: 'api', services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: `${meanMs}ms` } } } },
  });

describe('compare and history on stored runs', { timeout: 120_000 }, () => {
  const nights = join(scratch, 'nights');
  const others = join(nights, 'other-service');
  beforeAll(async () => {
    // Seven nights: different seeds (noise only), night 5 with the slow build, fixed again on night 6.
    // Between nights 3 and 4 a slow service of another profile runs twice (same build, same seed):
    // judged against the nightly runs it would read as a regression and night 4 as an improvement.
    for (let i = 1; i <= 7; i++) {
      await runProfile(night(i, i === 5 ? 1.6 : 1), { outDir: join(nights, `night-${i}`) });
      if (i === 3) for (const j of [1, 2]) await runProfile(night(1, 1.6, 'other-service'), { outDir: join(others, `other-${j}`) });
    }
  }, 120_000);

  it('two runs of the same build with different seeds: no regression (exit 0)', () => {
    const run = stampede(['compare', join(nights, 'night-1'), join(nights, 'night-2')]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^# compare: no regression/);
    expect(run.stdout).toMatch(/\| p99 .*\| same/);
  });

  it('the slow build regresses p50, p99 and p99.9 (exit 1); going back is an improvement', () => {
    const slow = compareRuns(loadSnapshot(join(nights, 'night-4')), loadSnapshot(join(nights, 'night-5')));
    expect(slow.regressed).toBe(true);
    expect(slow.rows.filter((r) => r.metric.startsWith('p')).map((r) => r.change)).toEqual(['regressed', 'regressed', 'regressed']);
    const run = stampede(['compare', join(nights, 'night-4'), join(nights, 'night-5')]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^# compare: REGRESSED \(p50, p99, p99\.9\)/);
    expect(compareRuns(loadSnapshot(join(nights, 'night-5')), loadSnapshot(join(nights, 'night-6'))).rows.find((r) => r.metric === 'p99')!.change).toBe('improved');
  });

  it('history groups by profile: each run is judged against the previous run of its own profile', () => {
    const { dirs, skipped } = findSnapshotDirs(nights);
    expect(skipped).toEqual([]);
    expect(dirs).toHaveLength(9);
    const history = buildHistory(dirs.map(loadSnapshot));
    expect(history.profiles.map((p) => [p.profileName, p.entries.map((e) => e.snapshot.label)])).toEqual([
      ['nightly', ['night-1', 'night-2', 'night-3', 'night-4', 'night-5', 'night-6', 'night-7']],
      ['other-service', ['other-1', 'other-2']],
    ]);
    expect(history.regressions).toEqual(['nightly night-5 (p50, p99, p99.9)']);
    const { markdown, html } = renderHistory(history);
    expect(markdown).toMatch(/^# history: 9 runs of 2 profiles/);
    const rows = markdown.split('\n').filter((l) => l.startsWith('| night-'));
    expect(rows.map((r) => r.split('|')[1]!.trim())).toEqual(['night-1', 'night-2', 'night-3', 'night-4', 'night-5', 'night-6', 'night-7']);
    expect(rows[3]).toMatch(/\| same\s+\|$/);
    expect(rows[4]).toContain('**REGRESSED: p50, p99, p99.9**');
    expect(rows[5]).toContain('improved: p50, p99, p99.9');
    expect(markdown.split('\n').filter((l) => l.includes('REGRESSED'))).toHaveLength(1);
    expect(markdown.split('\n').find((l) => l.startsWith('| other-2'))).toMatch(/\| same\s+\|$/);
    expect(html.match(/<svg/g)).toHaveLength(2);
  });

  it('history through the CLI exits 1 on a regression, 0 without, and creates --out', () => {
    const out = join(scratch, 'not', 'yet', 'there');
    const all = stampede(['history', nights, '--out', out]);
    expect(all.stderr).toBe('');
    expect(all.status).toBe(1);
    expect(readFileSync(join(out, 'history.md'), 'utf8')).toMatch(/^# history: 9 runs of 2 profiles/);
    expect(readFileSync(join(out, 'history.html'), 'utf8')).toContain('<svg');
    const two = join(scratch, 'two');
    for (const n of ['night-4', 'night-5']) cpSync(join(nights, n), join(two, n), { recursive: true });
    const pair = stampede(['history', two]);
    expect(pair.status).toBe(1);
    expect(pair.stdout).toMatch(/^# history: 2 runs of 1 profile\n/);
    expect(pair.stdout).toContain('**REGRESSED: p50, p99, p99.9**');
    expect(readFileSync(join(two, 'history.md'), 'utf8')).toBe(pair.stdout.split('\nwritten to ')[0]);
    const steady = join(scratch, 'steady');
    for (const n of ['night-1', 'night-2']) cpSync(join(nights, n), join(steady, n), { recursive: true });
    expect(stampede(['history', steady]).status).toBe(0);
    expect(stampede(['history', join(scratch, 'no-such-folder')]).status).toBe(2);
  });
});
