import { describe, expect, it } from 'vitest';
import type { ModelRunResult } from '../support/run.ts';
import { mean, rehearse, SEEDS, series } from './support.ts';

/**
 * The HotOS'21 retry example's other trigger: a network element that buffers requests and delivers
 * them late, as server work whose callers have given up. Profile: hotos-retry.yaml, its capacity
 * dip replaced by a 2 s `network` event in front of the service.
 */
describe('a network element: delay, partition, buffer (HotOS retry example, profiles/hotos-retry.yaml)', () => {
  const PROFILE = 'hotos-retry';
  const RATE = 700;
  const network = (mode: string, extra = '') => `topology.timeline=[{type: network, at: 20s, for: 2s, to: api, mode: ${mode}${extra}}]`;
  const success = (run: ModelRunResult, from: number, to: number) => mean(series(run, 'goodputRps'), from, to) / RATE;

  it.each(SEEDS)(
    'seed %i: a buffer holding requests for 2 s delivers them at once — most to callers long gone — and the service stays failed',
    { timeout: 30_000 },
    async (seed) => {
      const run = await rehearse(PROFILE, seed, [network('hold')]);
      expect(success(run, 5, 20)).toBeGreaterThan(0.95);
      // 2 s × 700/s × up to 4 attempts, every one timed out before delivery.
      const orphans = series(run, 'networkOrphans.api.0');
      expect(orphans[19]).toBe(0);
      expect(orphans[22]!).toBeGreaterThan(3000);
      expect(series(run, 'queueDepth.api')[22]!).toBeGreaterThan(1000);
      expect(success(run, 40, 90)).toBeLessThanOrEqual(0.1);
    },
  );

  it.each(SEEDS)('seed %i: the same buffer with LIFO: fresh attempts first, the service recovers', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, [network('hold'), 'topology.services.api.queue.discipline=lifo']);
    expect(series(run, 'networkOrphans.api.0')[25]!).toBeGreaterThan(3000);
    expect(success(run, 30, 90)).toBeGreaterThan(0.95);
  });

  it.each(SEEDS)('seed %i: a partition drops instead (no late delivery); a 20 ms delay only adds latency', { timeout: 30_000 }, async (seed) => {
    const partition = await rehearse(PROFILE, seed, [network('drop')]);
    expect(series(partition, 'networkDropped.api.0')[22]!).toBeGreaterThan(3000);
    expect(series(partition, 'networkOrphans.api.0')[22]).toBe(0);
    const delayed = await rehearse(PROFILE, seed, [network('delay', ', delay: 20ms')]);
    expect(success(delayed, 30, 90)).toBeGreaterThan(0.95);
    expect(series(delayed, 'networkDropped.api.0')[22]).toBe(0);
  });
});
