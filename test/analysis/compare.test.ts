import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ComparableRun, compareRuns, type Snapshot } from '../../src/analysis/compare.ts';
import type { RatePoint } from '../../src/analysis/latency-at-rate.ts';
import { intervalNoise, nightsNoise, noiseMargin, repeatNoise, t99 } from '../../src/analysis/noise.ts';
import { compareCapacity, compareErrorRates, quantileWithInterval } from '../../src/analysis/quantile-ci.ts';
import type { IntervalResult } from '../../src/recorder/interval-digest.ts';
import { renderComparison } from '../../src/report/compare-report.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { newHistogram } from '../../src/recorder/histograms.ts';
import { buildHistory } from '../../src/analysis/history.ts';
import { renderHistory } from '../../src/report/history-report.ts';
import { findSnapshotDirs, loadSnapshot } from '../../src/run-folder/snapshot.ts';
import { stampede } from '../helpers/cli.ts';
import { makeProfile } from '../helpers/profile.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-compare-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function uniform(n: number, scale = 1): ReturnType<typeof newHistogram> {
  const h = newHistogram();
  for (let i = 1; i <= n; i++) h.recordValue(Math.round((i * 10_000 * scale) / n));
  return h;
}

function qualification(label: string, capacity: ComparableRun['capacity'], curve: RatePoint[] = [], expectedPeakRps = 450): ComparableRun {
  return { label, kind: 'qualification', verdict: 'PASS', notComparable: [], requests: { failed: 0, total: 1000 }, capacity, curve, expectedPeakRps };
}

/** A run of 200,000 requests whose p99 is `scale` × 9.9 ms, with `intervals` measured intervals whose p50 and p99 spread by `spread` (ln). */
function run(label: string, scale: number, intervals = 0, spread = 0): ComparableRun {
  const series: IntervalResult[] = Array.from({ length: intervals }, (_, k) => {
    const wobble = Math.exp(spread * (k % 2 === 0 ? 1 : -1));
    const p99 = 9900 * scale * wobble;
    return {
      tMs: 1000 * (k + 1),
      warmup: false,
      sent: 5000,
      ok: 5000,
      failed: 0,
      dropped: 0,
      goodputRps: 5000,
      latencyUs: { p50: 5000 * scale * wobble, p99, max: 2 * p99 },
      gauges: {},
    };
  });
  return { label, kind: 'run', verdict: 'PASS', notComparable: [], latency: uniform(200_000, scale), requests: { failed: 0, total: 200_000 }, noise: intervalNoise(series, 1e9) };
}

function ratePoint(rps: number, scale: number): RatePoint {
  return { rps, latency: uniform(50_000, scale), requests: { failed: 0, total: 50_000 }, noise: {}, repeats: [{ p50: 5000 * scale, p99: 9900 * scale, p999: 9990 * scale }] };
}

describe('run-to-run noise', () => {
  it('batch means over the measured intervals: more spread, a wider margin; warm-up and too few intervals give none', () => {
    expect(run('a', 1, 4, 0.1).noise?.p99).toBeUndefined();
    const calm = run('a', 1, 20, 0.02).noise!.p99!;
    const noisy = run('a', 1, 20, 0.3).noise!.p99!;
    expect(calm).toMatchObject({ dof: 19, source: '20 intervals' });
    expect(noiseMargin(noisy)).toBeGreaterThan(10 * noiseMargin(calm));
    const warm = Array.from({ length: 8 }, (_, k) => ({
      ...({} as IntervalResult),
      tMs: k * 1000,
      warmup: true,
      ok: 5000,
      failed: 0,
      dropped: 0,
      latencyUs: { p50: 1, p99: 2, max: 3 },
    }));
    expect(intervalNoise(warm, 1e9)).toEqual({});
  });

  it('t shrinks towards the normal quantile as the degrees of freedom grow', () => {
    expect(t99(1)).toBeCloseTo(31.82, 1);
    expect(t99(9)).toBeCloseTo(2.821, 3);
    expect(t99(10_000)).toBeCloseTo(2.326, 3);
  });

  it('repeats: the pooled spread of the rates run more than once; none when no rate ran twice', () => {
    expect(repeatNoise([[10], [20]])).toBeUndefined();
    const noise = repeatNoise([[10_000, 12_000], [20_000, 20_000], [30_000]])!;
    expect(noise).toMatchObject({ dof: 2, source: '2 rates run 2×' });
    // One run's spread is half the difference of a pair; the figure of a rate merges its two repeats (÷ √2).
    expect(noise.se).toBeCloseTo(Math.log(12 / 10) / 2 / Math.SQRT2, 6);
  });

  it('nights: the spread of successive nights, which one change of build does not widen; none before five nights', () => {
    expect(nightsNoise([100, 110, 95, 105], true)).toBeUndefined();
    const steady = nightsNoise([100, 110, 100, 110, 100, 110], true)!;
    const stepped = nightsNoise([100, 110, 100, 110, 200, 220, 200, 220], true)!;
    expect(steady).toMatchObject({ dof: 5, source: '6 nights' });
    expect(stepped.se).toBeCloseTo(steady.se, 9);
  });

  it('in a history, a night inside the earlier nights’ spread is "same", though the sampling intervals alone would call it a regression', () => {
    const nights: Snapshot[] = [1, 1.1, 0.95, 1.05, 1, 1.1, 1.14].map((scale, i) => ({
      ...run(`night-${i + 1}`, scale),
      dir: `/n/${i + 1}`,
      startedAt: `2026-01-0${i + 1}T02:00:00.000Z`,
      profileName: 'nightly',
      interrupted: false,
    }));
    expect(compareRuns(nights[5]!, nights[6]!).rows.find((r) => r.metric === 'p99')!.change).toBe('regressed');
    const history = buildHistory(nights);
    const last = history.profiles[0]!.entries.at(-1)!.vsPrevious!;
    expect(last.rows.find((r) => r.metric === 'p99')).toMatchObject({ change: 'same', margin: expect.stringMatching(/run-to-run ±\d+% \(6 nights\)/) });
    // Before five nights there is no spread to read: the early nights are judged by their sampling intervals alone.
    expect(history.latest[0]).toMatchObject({ label: 'night-7', regressed: [] });
    expect(history.alarming).toBe(false);
    // A night far outside the spread still regresses.
    const slow = { ...nights[6]!, ...run('night-7', 2) };
    expect(buildHistory([...nights.slice(0, 6), slow]).regressions).toContain('nightly night-7 (p50, p99, p99.9)');
  });

  it('a difference inside the baseline’s run-to-run noise is "same", though the sampling intervals alone would call it a regression', () => {
    const calm = compareRuns(run('a', 1, 20, 0.01), run('b', 1.1));
    expect(calm.rows.find((r) => r.metric === 'p99')).toMatchObject({ change: 'regressed' });
    const noisy = compareRuns(run('a', 1, 20, 0.3), run('b', 1.1));
    expect(noisy.rows.find((r) => r.metric === 'p99')).toMatchObject({ change: 'same' });
    expect(noisy.rows.find((r) => r.metric === 'p99')!.margin).toMatch(/run-to-run ±\d+% \(20 intervals\)/);
    expect(noisy.verdict).toBe('no regression');
  });
});

describe('what compare compared', () => {
  it('an INVALID or interrupted side is not comparable, with its reasons, and never a regression', () => {
    const late = { ...run('b', 3), verdict: 'INVALID', notComparable: ['the load generator was the limit (send lateness p99 40ms)'] };
    const c = compareRuns(run('a', 1), late);
    expect(c).toMatchObject({ verdict: 'not comparable', regressed: false, rows: [] });
    expect(c.notComparable).toEqual([{ side: 'candidate', label: 'b', verdict: 'INVALID', reasons: late.notComparable }]);
    const md = renderComparison(c);
    expect(md).toMatch(/^# compare: not comparable \(candidate INVALID\)/);
    expect(md).toContain('- the candidate `b` is no evidence: the load generator was the limit (send lateness p99 40ms)');
    expect(md).not.toContain('REGRESSED');
    const cut = { ...run('a', 1), verdict: 'INVALID', notComparable: ['interrupted: its figures are partial'] };
    expect(renderComparison(compareRuns(cut, run('b', 1)))).toMatch(/^# compare: not comparable \(baseline INVALID, interrupted\)/);
  });

  it('qualifications compare latency at one offered rate, interpolated where a side did not measure it, and named', () => {
    // The baseline measured 300 and 600 rps, the candidate 450: p99 at 600 against p99 at 450 would compare nothing.
    const baseline = qualification('a', { pass: 600, fail: 900 }, [ratePoint(300, 1), ratePoint(600, 4)]);
    const candidate = qualification('b', { pass: 450, fail: 600 }, [ratePoint(300, 1), ratePoint(450, 3)]);
    const c = compareRuns(baseline, candidate);
    expect(c.rows.map((r) => r.metric)).toEqual(['capacity', 'p50 at 450 rps', 'p99 at 450 rps', 'p99.9 at 450 rps']);
    const p99 = c.rows.find((r) => r.metric === 'p99 at 450 rps')!;
    // √(1 × 4) = 2: the baseline's p99 at 450 rps lies halfway between its steps on a log scale.
    expect(p99.baseline).toMatch(/^19\.8ms /);
    expect(p99.candidate).toMatch(/^29\.7ms /);
    expect(p99.change).toBe('regressed');
    expect(c.notes).toEqual([
      expect.stringContaining('latency compared at 450 rps, the expected peak (baseline interpolated between its steps at 300 and 600 rps; candidate measured there)'),
    ]);
    expect(renderComparison(c)).toContain('| p99 at 450 rps');
    // Rates that do not overlap: no latency row at all.
    const apart = compareRuns(baseline, qualification('c', { pass: 900 }, [ratePoint(900, 1), ratePoint(1200, 2)]));
    expect(apart.rows.map((r) => r.metric)).toEqual(['capacity']);
    expect(apart.notes[0]).toMatch(/^latency not compared/);
  });
});

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
    const base = qualification('a', { pass: 5000, fail: 5300, failoverPass: true });
    const worse = qualification('b', { pass: 3000, fail: 4000, failoverPass: false });
    const c = compareRuns(base, worse);
    expect(c.rows.map((r) => [r.metric, r.change])).toEqual([
      ['capacity', 'regressed'],
      ['failover (N+1)', 'regressed'],
    ]);
    expect(c.regressed).toBe(true);
    expect(compareRuns(base, { ...base, label: 'c' }).regressed).toBe(false);
  });

  it('a missing capacity is "none", and none → a capacity is a change, not "same"', () => {
    const none = qualification('a', { fail: 600 });
    const some = qualification('b', { pass: 450, fail: 600 });
    expect(compareRuns(none, some).rows[0]).toMatchObject({ metric: 'capacity', baseline: 'none (fails at 600)', candidate: '450 rps (fails at 600)', change: 'improved' });
    expect(compareRuns(some, none).rows[0]).toMatchObject({ baseline: '450 rps (fails at 600)', candidate: 'none (fails at 600)', change: 'regressed' });
    expect(compareRuns(some, none).verdict).toBe('regressed');
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
    // Five whole measured intervals: enough for a run-to-run estimate from the run's own spread.
    phases: [{ type: 'steady', rate: 4000, duration: '6s' }],
    slo: { latency: [{ percentile: 99, max: '50ms' }], errorRate: 0.01 },
    topology: { entry: 'api', services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: `${meanMs}ms` } } } },
  });

/** A copy of a stored run judged INVALID: its generator was late (as a real target's run can be). */
function invalidCopy(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  const path = join(to, 'analysis.json');
  const analysis = JSON.parse(readFileSync(path, 'utf8'));
  const late = { id: 'generator-bottleneck', severity: 'invalid', title: 'the load generator was the limit', evidence: 'send lateness p99 40ms', incident: '', fix: '' };
  writeFileSync(path, JSON.stringify({ ...analysis, verdict: 'INVALID', flags: [late, ...analysis.flags] }));
}

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
    expect(run.stdout).toMatch(/\| p99 .*\| same .*run-to-run ±\d+% \(5 intervals\)/);
    expect(run.stdout).toContain('baseline `night-1` (run, PASS, 4000 rps offered, ');
  });

  it('an INVALID candidate is not comparable (exit 5), with its reasons, not a regression; an interrupted one too', () => {
    const invalid = join(scratch, 'invalid', 'night-5');
    invalidCopy(join(nights, 'night-5'), invalid);
    const run = stampede(['compare', join(nights, 'night-4'), invalid]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(5);
    expect(run.stdout).toMatch(/^# compare: not comparable \(candidate INVALID\)/);
    expect(run.stdout).toContain('the load generator was the limit (send lateness p99 40ms)');
    expect(run.stdout).not.toMatch(/REGRESSED|\| p99/);
    const cut = join(scratch, 'cut');
    cpSync(join(nights, 'night-2'), cut, { recursive: true });
    const result = JSON.parse(readFileSync(join(cut, 'result.json'), 'utf8'));
    writeFileSync(join(cut, 'result.json'), JSON.stringify({ ...result, interrupted: true }));
    const interrupted = stampede(['compare', cut, join(nights, 'night-3')]);
    expect(interrupted.status).toBe(5);
    expect(interrupted.stdout).toContain('- the baseline `cut` is no evidence: interrupted: its figures are partial');
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
    expect(rows[4]).toContain('**REGRESSED: p50, p99, p99.9** (vs night-4)');
    expect(rows[5]).toContain('improved: p50, p99, p99.9');
    expect(markdown.split('\n').filter((l) => l.includes('REGRESSED'))).toHaveLength(1);
    expect(markdown.split('\n').find((l) => l.startsWith('| other-2'))).toMatch(/\| same\s+\|$/);
    expect(html.match(/<svg/g)).toHaveLength(2);
  });

  it('history’s badge is the latest night’s verdict: INVALID is not green, its regressions beside it', () => {
    const folder = join(scratch, 'with-invalid');
    for (const n of ['night-3', 'night-4']) cpSync(join(nights, n), join(folder, n), { recursive: true });
    invalidCopy(join(nights, 'night-5'), join(folder, 'night-5'));
    const history = buildHistory(findSnapshotDirs(folder).dirs.map(loadSnapshot));
    expect(history.verdict).toBe('INVALID');
    expect(history.alarming).toBe(true);
    expect(history.regressions).toEqual([]);
    const { markdown, html } = renderHistory(history);
    expect(html).toMatch(/<h1>history <span class="verdict INVALID">INVALID<\/span><\/h1>/);
    expect(markdown).toContain('- latest night of nightly: `night-5`, **INVALID**, not comparable');
    expect(markdown.split('\n').find((l) => l.startsWith('| night-5'))).toContain('not comparable: the load generator was the limit (send lateness p99 40ms)');
    // Charts leave the INVALID night out; the next valid night is compared with night 4.
    expect(stampede(['history', folder]).status).toBe(1);
    cpSync(join(nights, 'night-6'), join(folder, 'night-6'), { recursive: true });
    const after = buildHistory(findSnapshotDirs(folder).dirs.map(loadSnapshot));
    expect(after.profiles[0]!.entries.at(-1)!.vsPrevious!.baseline.label).toBe('night-4');
    expect(after.verdict).toBe('PASS');
    // The slow night regressed and is the latest: PASS, with REGRESSED beside it.
    const slow = join(scratch, 'slow-latest');
    for (const n of ['night-4', 'night-5']) cpSync(join(nights, n), join(slow, n), { recursive: true });
    const slowHistory = renderHistory(buildHistory(findSnapshotDirs(slow).dirs.map(loadSnapshot)));
    expect(slowHistory.html).toMatch(/<span class="verdict PASS">PASS<\/span> <span class="verdict REGRESSED">REGRESSED: p50, p99, p99\.9<\/span>/);
  });

  it('history through the CLI exits 1 when the latest night regressed, 0 when it is green, and creates --out', () => {
    const out = join(scratch, 'not', 'yet', 'there');
    const all = stampede(['history', nights, '--out', out]);
    expect(all.stderr).toBe('');
    // Night 5 regressed, but the latest nights (7, other-2) are green.
    expect(all.status).toBe(0);
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
