import { describe, expect, it } from 'vitest';
import { defineGauge, gaugeCatalog, intervalMaxOf, peakKey } from '../../src/recorder/gauges.ts';

describe('gauge peaks: the per-interval maximum where a gauge has one', () => {
  const THREADS = defineGauge('threads', 'count', 'process', 'at the sample');
  const THREADS_MAX = intervalMaxOf(THREADS, defineGauge('threadsMax', 'count', 'process', 'at any moment of the interval'));
  const HIT_RATIO = defineGauge('hitRatio', 'ratio', 'hit-ratio', 'over the interval');
  const catalog = gaugeCatalog([THREADS, THREADS_MAX, HIT_RATIO]);

  it('marks `<name>Max` as the maximum of its sampled gauge', () => {
    expect(THREADS_MAX).toMatchObject({ name: 'threadsMax', unit: 'count', family: 'process', maxOf: 'threads' });
  });

  it('reads a gauge’s peaks from its maximum, per instance, and from the samples when it has none', () => {
    expect(peakKey(catalog, 'threads.dataplane')).toBe('threadsMax.dataplane');
    expect(peakKey(catalog, 'hitRatio.cache')).toBe('hitRatio.cache');
    expect(peakKey(gaugeCatalog([THREADS]), 'threads.dataplane')).toBe('threads.dataplane');
  });

  it('refuses a maximum of a count of events (a count has no moment to peak at), or one not named, measured and grouped as its gauge', () => {
    const oomKills = defineGauge('oomKills', 'count', 'process', 'since the start', 'run');
    expect(() => intervalMaxOf(oomKills, defineGauge('oomKillsMax', 'count', 'process', 'x'))).toThrow(/count has no interval maximum/);
    expect(() => intervalMaxOf(THREADS, defineGauge('threadsPeak', 'count', 'process', 'x'))).toThrow(/is "threadsMax"/);
    expect(() => intervalMaxOf(THREADS, defineGauge('threadsMax', 'mb', 'process', 'x'))).toThrow(/in its unit and family/);
  });
});
