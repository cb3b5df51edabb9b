import { describe, expect, it } from 'vitest';
import { spoiledInterval } from '../../src/analysis/spoiled-interval.ts';
import type { SloCheck } from '../../src/analysis/slo.ts';
import type { Slo } from '../../src/profile/schema.ts';
import type { IntervalResult } from '../../src/recorder/interval-digest.ts';
import type { RunResult } from '../../src/recorder/result.ts';

/** One second of 1,000 requests: p99 and failed as given. */
function second(tMs: number, p99Us: number, failed = 0, warmup = false): IntervalResult {
  return { tMs, warmup, sent: 1000, ok: 1000 - failed, failed, dropped: 0, goodputRps: 1000 - failed, latencyUs: { p50: 1000, p99: p99Us, max: p99Us * 2 }, gauges: {} };
}

function resultOf(points: IntervalResult[]): RunResult {
  return { intervals: { file: 'intervals.jsonl', count: points.length, intervalMs: 1000, spanMs: 1000, series: points, gauges: {} } } as unknown as RunResult;
}

const SLO = { latency: [{ percentile: 99, max: 50_000 }], errorRate: 0.01 } as Slo;
const latencyFailed: SloCheck[] = [
  { name: 'p99 ≤ 50ms', pass: false, actual: 400_000, limit: 50_000, unit: 'us' },
  { name: 'error rate ≤ 1%', pass: true, actual: 0, limit: 0.01, unit: 'ratio' },
];
const errorsFailed: SloCheck[] = [
  { name: 'p99 ≤ 50ms', pass: true, actual: 4000, limit: 50_000, unit: 'us' },
  { name: 'error rate ≤ 1%', pass: false, actual: 0.03, limit: 0.01, unit: 'ratio' },
];
const clean = (tMs: number) => second(tMs, 4000);

describe('a failure spoiled by one interval', () => {
  it('one stalled second among clean ones: named, with its time and what broke there', () => {
    const points = [second(0, 900_000, 0, true), clean(1000), clean(2000), second(3000, 800_000), clean(4000), clean(5000), clean(6000)];
    expect(spoiledInterval(resultOf(points), SLO, latencyFailed)).toEqual({ tMs: 3000, spanMs: 1000, detail: 'p99 800ms there; the other 5 intervals met the SLO' });
  });

  it('a stall straddling two neighbouring intervals is one stretch; two apart are not', () => {
    const straddle = [clean(0), clean(1000), second(2000, 600_000), second(3000, 300_000), clean(4000), clean(5000)];
    expect(spoiledInterval(resultOf(straddle), SLO, latencyFailed)).toMatchObject({ tMs: 2000, spanMs: 2000 });
    const apart = [clean(0), second(1000, 600_000), clean(2000), second(3000, 300_000), clean(4000), clean(5000)];
    expect(spoiledInterval(resultOf(apart), SLO, latencyFailed)).toBeUndefined();
  });

  it('errors: the interval must hold most of them and the rest must meet the limit', () => {
    const burst = [clean(0), clean(1000), second(2000, 4000, 150), second(3000, 4000, 2), clean(4000)];
    expect(spoiledInterval(resultOf(burst), SLO, errorsFailed)).toMatchObject({ tMs: 2000, detail: '98.7% of the failed requests there; the other 4 intervals met the SLO' });
    const spread = [second(0, 4000, 30), second(1000, 4000, 30), second(2000, 4000, 30), second(3000, 4000, 30)];
    expect(spoiledInterval(resultOf(spread), SLO, errorsFailed)).toBeUndefined();
  });

  it('not for a pass, a step too short to tell, or a check on one kind', () => {
    const points = [clean(0), second(1000, 800_000), clean(2000), clean(3000)];
    const passed = latencyFailed.map((c) => ({ ...c, pass: true }));
    expect(spoiledInterval(resultOf(points), SLO, passed)).toBeUndefined();
    expect(spoiledInterval(resultOf([clean(0), second(1000, 800_000)]), SLO, latencyFailed)).toBeUndefined();
    const byKind = { latency: [{ percentile: 99, max: 50_000, kind: 'get' }] } as Slo;
    expect(spoiledInterval(resultOf(points), byKind, latencyFailed.slice(0, 1))).toBeUndefined();
  });
});
