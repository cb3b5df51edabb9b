import { describe, expect, it } from 'vitest';
import { gaugeCatalog } from '../../src/recorder/gauges.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { gaugeCharts } from '../../src/report/charts.ts';
import type { IntervalResult } from '../../src/recorder/run-recorder.ts';
import { runProfileOnModel } from './support/run.ts';

describe('per-component gauges', () => {
  it('make the one hot shard of viral-hot-key stand out, sampled once per interval, in the cache and hit-ratio charts', async () => {
    // The hot key rises from 30 s to its peak at 40 s and holds until 60 s.
    const { report, recorder } = await runProfileOnModel(await loadProfile('profiles/viral-hot-key.yaml', ['phases.0.duration=55s']));
    const at = (s: number) => recorder.intervals[s]!;
    const hottest = (s: number) => at(s)['shardLoadRps.tweet-cache.hottest']!;
    const others = (s: number) => at(s)['shardLoadRps.tweet-cache.others']!;
    // Before the event Zipf skews the shards a little; at the peak one shard carries over 20× the others' mean.
    expect(hottest(20) / others(20)).toBeLessThan(4);
    for (const s of [45, 50]) expect(hottest(s) / others(s)).toBeGreaterThan(20);
    // The same shard all through the peak.
    expect(new Set([42, 45, 50].map((s) => at(s)['hottestShard.tweet-cache']))).toHaveProperty('size', 1);
    expect(at(45)['shardHitRatio.tweet-cache.hottest']).toBeGreaterThan(0.9);

    const intervals = recorder.intervals.map(
      (gauges, i): IntervalResult => ({ tMs: i * 1000, warmup: false, sent: 0, ok: 0, failed: 0, dropped: 0, goodputRps: 0, latencyUs: { p50: 0, p99: 0, max: 0 }, gauges }),
    );
    const charts = gaugeCharts(intervals, gaugeCatalog(report.gauges));
    const seriesIn = (title: string) => (charts.find((c) => c.title === title)!.option as { series: { name: string }[] }).series.map((s) => s.name);
    expect(seriesIn('Cache shards, memory and NIC')).toEqual(expect.arrayContaining(['shardLoadRps.tweet-cache.hottest', 'shardLoadRps.tweet-cache.others']));
    expect(seriesIn('Hit ratio')).toEqual(expect.arrayContaining(['shardHitRatio.tweet-cache.hottest', 'shardHitRatio.tweet-cache.others']));
  });

  it('split the pools by client group: the groups’ open, idle and waiting add up to the run-wide totals', async () => {
    const { recorder } = await runProfileOnModel(await loadProfile('profiles/viral-hot-key.yaml', ['phases.0.duration=45s']));
    const groups = ['users', 'tweets-to-cache', 'tweets-to-store'];
    for (const s of [10, 40]) {
      const g = recorder.intervals[s]!;
      for (const [total, name] of [
        ['openConnections', 'openConnections'],
        ['idleConnections', 'idleConnections'],
        ['checkoutWaiters', 'checkoutWaiters'],
      ] as const) {
        expect(groups.reduce((sum, group) => sum + g[`${name}.${group}`]!, 0)).toBe(g[total]);
      }
    }
    // At the peak the cache's callers hold many more connections busy; the database's stay as they were.
    const busy = (s: number, group: string) => recorder.intervals[s]![`openConnections.${group}`]! - recorder.intervals[s]![`idleConnections.${group}`]!;
    expect(busy(40, 'tweets-to-cache')).toBeGreaterThan(5 * busy(10, 'tweets-to-cache'));
    expect(busy(40, 'tweets-to-store')).toBeLessThan(busy(10, 'tweets-to-store') + 5);
  });
});
