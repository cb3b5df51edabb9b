import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './support.ts';

/**
 * Twitter 2016-01 with mixed hardware in one cache: a shard class for the older 20% of hosts
 * (less socket-buffer memory); the cluster manager's removal rule counts the whole cache.
 * Profile: twitter-2016-01-socket-oom.yaml.
 */
describe('shard classes in a cluster-wide rule: 20% of hosts an older generation with less socket-buffer memory (Twitter 2016-01)', () => {
  const PROFILE = 'twitter-2016-01-socket-oom';
  const SHARDS = 20;
  const AUTO_REMOVED = 2;
  // No fragmentation anywhere: only the older generation's smaller memory (55 MB, 10 MB above the
  // base instead of 55) makes a difference.
  const OLD_GENERATION = ['topology.caches.tweet-cache.memory.fragmentation=0', 'topology.caches.tweet-cache.shardClasses=[{fraction: 0.2, memory: {limit: 55}}]'];

  it.each(SEEDS)(
    'seed %i: the old hosts die in the spike; one cache, one rule — the manager removes only 2, the rest fail flat until the restore',
    { timeout: 30_000 },
    async (seed) => {
      const run = await rehearse(PROFILE, seed, OLD_GENERATION);
      const dead = series(run, 'deadShards.tweet-cache');
      expect(Math.max(...dead.slice(0, 20))).toBe(0);
      expect(dead[60]!).toBeGreaterThan(AUTO_REMOVED);
      expect(series(run, 'shards.tweet-cache')[60]).toBe(SHARDS - AUTO_REMOVED);
      expect(mean(series(run, 'goodputRps'), 55, 69) / 2000).toBeLessThan(0.97);
      expect(dead[72]).toBe(0);
    },
  );

  it.each(SEEDS)('seed %i: the old generation replaced (no class): nothing dies', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.caches.tweet-cache.memory.fragmentation=0']);
    expect(Math.max(...series(run, 'deadShards.tweet-cache'))).toBe(0);
    expect(run.details.requests.failed).toBe(0);
  });
});
