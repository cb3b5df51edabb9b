import { describe, expect, it } from 'vitest';
import { analyseRecovery } from '../../src/analysis/recovery.ts';
import type { IntervalResult } from '../../src/recorder/interval-digest.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { makeProfile } from '../helpers/profile.ts';

/** One 1 s point: 1,000 requests, `failed` of them failed, the given p99 (µs) and hit ratio. */
function point(tMs: number, p99: number, hitRatio: number, failed = 0): IntervalResult {
  return {
    tMs,
    warmup: false,
    sent: 1000,
    ok: 1000 - failed,
    failed,
    dropped: 0,
    goodputRps: 1000 - failed,
    latencyUs: { p50: p99 / 2, p99, max: p99 },
    gauges: { 'hitRatio.memcached': hitRatio },
  };
}

/** A 10 s run with the given points and one event applied at `atMs`. */
function run(points: IntervalResult[], atMs: number): RunResult {
  return {
    warmupMs: 0,
    durationMs: 10_000,
    timeline: [{ index: 0, type: 'removeShards', label: 'removeShards: s3 leaves the ring', plannedMs: atMs, actualMs: atMs, status: 'applied' }],
    intervals: { file: 'intervals.jsonl', count: points.length, intervalMs: 1000, spanMs: 1000, series: points, gauges: {} },
  } as unknown as RunResult;
}

const withSlo = makeProfile({
  name: 'r',
  phases: [{ type: 'steady', rate: 1000, duration: '10s' }],
  slo: { latency: [{ percentile: 99, max: '10ms' }], errorRate: 0.01 },
} as never);
const noSlo = makeProfile({ name: 'r', phases: [{ type: 'steady', rate: 1000, duration: '10s' }] } as never);

describe('time to recover', () => {
  it('is the time from the event to the first of three intervals in a row back inside, naming what was out', () => {
    const ratios = [0.99, 0.99, 0.99, 0.7, 0.85, 0.96, 0.98, 0.99, 0.99, 0.99];
    const t = analyseRecovery(
      run(
        ratios.map((r, i) => point(i * 1000, 2000, r)),
        3200,
      ),
      withSlo,
    )!;
    expect(t.criteria).toMatchObject({ p99MaxUs: 10_000, p99From: 'slo', errorRateMax: 0.01, errorRateFrom: 'slo', holdPoints: 3 });
    expect(t.criteria.hitRatioMin['hitRatio.memcached']).toBeCloseTo(0.97);
    // Out at 3 s (0.70) and 4 s (0.85), 5 s (0.96) is still below 0.97: back from 6 s on.
    expect(t.events).toEqual([{ label: 'removeShards: s3 leaves the ring', type: 'removeShards', atMs: 3200, recoveryMs: 2800, breached: ['hitRatio.memcached'] }]);
    expect(t.parts.before).toMatchObject({ fromMs: 0, toMs: 3200, sent: 3000 });
    expect(t.parts.during).toMatchObject({ fromMs: 3200, toMs: 6000, sent: 3000 });
    expect(t.parts.during!.hitRatio['hitRatio.memcached']).toBeCloseTo((0.7 + 0.85 + 0.96) / 3);
    expect(t.parts.after).toMatchObject({ fromMs: 6000, toMs: 10_000, sent: 4000 });
  });

  it('an event that disturbs nothing recovers at once; one whose errors last to the end did not recover within the run', () => {
    const calm = analyseRecovery(
      run(
        [0, 1, 2, 3, 4, 5].map((i) => point(i * 1000, 2000, 0.99)),
        2500,
      ),
      withSlo,
    )!;
    expect(calm.events[0]).toMatchObject({ recoveryMs: 0, breached: [] });
    const failing = analyseRecovery(
      run(
        [0, 1, 2, 3, 4, 5, 6, 7].map((i) => point(i * 1000, i < 3 ? 2000 : 50_000, 0.99, i < 3 ? 0 : 100)),
        3000,
      ),
      withSlo,
    )!;
    expect(failing.events[0]).toMatchObject({ recoveryMs: null, breached: ['p99', 'error rate'] });
    expect(failing.parts.during).toMatchObject({ fromMs: 3000, toMs: 10_000 });
    expect(failing.parts.after).toBeUndefined();
  });

  it('without an SLO, p99 is judged against twice the median p99 before the first event, and errors against 1%', () => {
    const p99s = [1000, 1200, 1100, 5000, 2500, 2000, 2100, 2000, 2000, 2000];
    const t = analyseRecovery(
      run(
        p99s.map((p, i) => point(i * 1000, p, 0.99)),
        3000,
      ),
      noSlo,
    )!;
    expect(t.criteria).toMatchObject({ p99MaxUs: 2200, p99From: 'baseline', errorRateMax: 0.01, errorRateFrom: 'default' });
    expect(t.events[0]).toMatchObject({ recoveryMs: 2000, breached: ['p99'] });
  });

  it('a run without applied events has no timeline analysis', () => {
    const r = run([point(0, 1000, 1)], 0);
    expect(analyseRecovery({ ...r, timeline: [{ ...r.timeline![0]!, actualMs: null, status: 'not reached' }] }, withSlo)).toBeUndefined();
    expect(analyseRecovery({ ...r, timeline: undefined } as RunResult, withSlo)).toBeUndefined();
  });
});
