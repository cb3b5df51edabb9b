import { describe, expect, it } from 'vitest';
import { defineGauge, gaugeCatalog, intervalMaxOf } from '../../src/recorder/gauges.ts';
import { IntervalDigest, SERIES_POINTS, type IntervalResult } from '../../src/recorder/interval-digest.ts';
import { upgradeResult, type RunResult } from '../../src/recorder/result.ts';

function interval(i: number, warmupIntervals = 0): IntervalResult {
  return {
    tMs: i * 10,
    warmup: i < warmupIntervals,
    sent: 3,
    ok: 2,
    failed: 1,
    dropped: 0,
    goodputRps: 200,
    latencyUs: { p50: 100 + (i % 7), p99: 1000 + (i % 11), max: 5000 + i },
    gauges: { inFlight: i % 5, 'hitRatio.cache': i < warmupIntervals ? 0 : 0.5 },
  };
}

describe('interval digest: bounded however long the run', () => {
  it('keeps 200,000 intervals as at most SERIES_POINTS points with every count, and exact gauge statistics', () => {
    const digest = new IntervalDigest(10_000);
    const n = 200_000;
    for (let i = 0; i < n; i++) digest.add(interval(i, 1000));
    const s = digest.summary();
    expect(s.count).toBe(n);
    expect(s.series.length).toBeLessThanOrEqual(SERIES_POINTS);
    expect(s.series.length).toBeGreaterThan(SERIES_POINTS / 4);
    expect(s.spanMs % s.intervalMs).toBe(0);
    expect(s.series.reduce((sum, p) => sum + p.ok, 0)).toBe(2 * n);
    expect(s.series.reduce((sum, p) => sum + p.sent, 0)).toBe(3 * n);
    // Each point starts where the previous one ends.
    s.series.slice(1).forEach((p, i) => expect(p.tMs - s.series[i]!.tMs).toBe(s.spanMs));
    expect(s.series[0]!.goodputRps).toBe(200);
    expect(Math.max(...s.series.map((p) => p.latencyUs.max))).toBe(5000 + n - 1);
    expect(s.gauges['inFlight']).toEqual({ min: 0, max: 4, last: (n - 1) % 5, measuredMean: 2 });
    // The warm-up's zeros are out of the measured mean, in the min.
    expect(s.gauges['hitRatio.cache']).toEqual({ min: 0, max: 0.5, last: 0.5, measuredMean: 0.5 });
  });

  it('is the intervals themselves while the run is short', () => {
    const digest = new IntervalDigest(10_000);
    const all = Array.from({ length: 40 }, (_, i) => interval(i));
    for (const i of all) digest.add(i);
    expect(digest.summary().series).toEqual(all);
    expect(digest.summary().spanMs).toBe(10);
  });

  it('reads a schema-2 result (every interval inline) as its summary', () => {
    const list = Array.from({ length: 30 }, (_, i) => ({ ...interval(i), tMs: i * 1000 }));
    const old = { schema: 'stampede.result/2', intervals: list } as unknown as RunResult;
    const upgraded = upgradeResult(old);
    expect(upgraded.schema).toBe('stampede.result/3');
    expect(upgraded.intervals.count).toBe(30);
    expect(upgraded.intervals.intervalMs).toBe(1000);
    expect(upgraded.intervals.series).toEqual(list);
  });
});

describe('interval digest: a per-interval maximum keeps its peak when neighbours merge', () => {
  const THREADS = defineGauge('threads', 'count', 'process', 'at the sample');
  const THREADS_MAX = intervalMaxOf(THREADS, defineGauge('threadsMax', 'count', 'process', 'at any moment'));
  // One burst between two samples: the sample never sees it, the interval's maximum does.
  const burst = (i: number): IntervalResult => ({ ...interval(i), gauges: { 'threads.svc': 10, 'threadsMax.svc': i === 777 ? 500 : 10 } });

  it('takes the larger maximum where the samples average, once the series is merged', () => {
    const digest = new IntervalDigest(10_000);
    digest.declareGauges(gaugeCatalog([THREADS, THREADS_MAX]));
    for (let i = 0; i < 4 * SERIES_POINTS; i++) digest.add(burst(i));
    const s = digest.summary();
    expect(s.spanMs).toBeGreaterThan(s.intervalMs);
    expect(Math.max(...s.series.map((p) => p.gauges['threadsMax.svc']!))).toBe(500);
    expect(Math.max(...s.series.map((p) => p.gauges['threads.svc']!))).toBe(10);
    expect(s.gauges['threadsMax.svc']!.max).toBe(500);
  });

  it('averages the same series without the declaration (what a chart of a long run used to show)', () => {
    const digest = new IntervalDigest(10_000);
    for (let i = 0; i < 4 * SERIES_POINTS; i++) digest.add(burst(i));
    expect(Math.max(...digest.summary().series.map((p) => p.gauges['threadsMax.svc']!))).toBeLessThan(500);
  });
});
