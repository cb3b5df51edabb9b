import { describe, expect, it } from 'vitest';
import { ShardedLru } from '../../src/model/components/cache/lru.ts';
import { hashKey } from '../../src/model/hash/index.ts';
import { cacheKind } from '../../src/model/components/cache/kind.ts';
import { Model } from '../../src/model/model.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { runModel, testProfile } from './support/run.ts';

describe('ShardedLru', () => {
  it('evicts the least recently used key of the shard that overflows', () => {
    const lru = new ShardedLru(10, 2, 2);
    lru.insert(1, 0);
    lru.insert(2, 0);
    lru.insert(5, 1);
    expect(lru.touch(1, 0)).toBe(true); // 1 is now most recent on shard 0
    lru.insert(3, 0); // shard 0 overflows: 2 goes
    expect([1, 2, 3, 5].map((k) => lru.has(k))).toEqual([true, false, true, true]);
    expect(lru.touch(2, 0)).toBe(false);
    expect(lru.evictions).toBe(1);
    expect([...lru.size]).toEqual([2, 1]);
  });
});

/** Cache topology: api → cache (per key), misses read the db and fill the cache. */
function cachedTopology(cache: Record<string, unknown>) {
  return {
    entry: 'api',
    clientGroups: { mc: {}, store: {} },
    services: { api: { workers: 'inf', calls: [{ to: 'cache', via: 'mc', perItem: true, onMiss: { to: 'db', via: 'store' } }] } },
    caches: { cache: { shards: 4, workers: 'inf', serviceTime: '50us', ...cache } },
    databases: { db: { concurrency: 1000, latency: '1ms' } },
  };
}

describe('cache placement and warm-up', () => {
  const profile = testProfile({
    phases: [{ type: 'steady', rate: 1, duration: 1 }],
    keys: { count: 1000, prefix: 'item:' },
    topology: cachedTopology({ hash: 'fnv1a_32', capacity: 10, warm: true }),
  });
  const model = new Model(profile.topology!, createSchedule(profile).plan, 1, { userCompleted: () => undefined });
  const cache = model.parts.wiring.all(cacheKind)[0]!;

  it('places a key on hash(name) mod shards', () => {
    for (const key of [0, 1, 17, 999]) expect(cache.placement.shardOf(key)).toBe(hashKey('fnv1a_32', `item:${key}`) % 4);
  });

  it('a warm cache starts with each shard full of its most popular keys', () => {
    expect([...cache.lru.size]).toEqual([10, 10, 10, 10]);
    for (let key = 0; key < 10; key++) expect(cache.lru.has(key)).toBe(true);
    // The 10th most popular key of each shard is in, the next one on that shard is not.
    for (let shard = 0; shard < 4; shard++) {
      const keys = Array.from({ length: 1000 }, (_, k) => k).filter((k) => cache.placement.shardOf(k) === shard);
      expect(cache.lru.has(keys[9]!)).toBe(true);
      expect(cache.lru.has(keys[10]!)).toBe(false);
    }
  });
});

describe('cache hit ratio follows key popularity', () => {
  // Zipf(1) over 100k keys, room for 10% of them.
  const run = (warm: boolean) =>
    runModel({
      seed: 3,
      phases: [{ type: 'steady', rate: 2000, duration: 10 }],
      keys: { count: 100_000, popularity: { type: 'zipf', s: 1 } },
      topology: cachedTopology({ capacity: 2500, warm }),
    });

  it('a warm cache hits more than a cold one; the cold one fills and rises towards it', async () => {
    const warm = await run(true);
    const cold = await run(false);
    const ratios = (r: typeof warm) => r.recorder.intervals.map((g) => g['hitRatio.cache']!);
    const warmRatios = ratios(warm);
    const coldRatios = ratios(cold);
    expect(warm.details.caches['cache']!.hitRatio).toBeGreaterThan(cold.details.caches['cache']!.hitRatio);
    // Zipf(1): the top 10% of 100k keys draw ~80% of lookups.
    expect(warmRatios[0]!).toBeGreaterThan(0.75);
    expect(coldRatios[0]!).toBeLessThan(warmRatios[0]! - 0.1);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const early = mean(coldRatios.slice(0, 2));
    const middle = mean(coldRatios.slice(3, 5));
    const late = mean(coldRatios.slice(7, 10));
    expect(middle).toBeGreaterThan(early + 0.05);
    expect(late).toBeGreaterThan(middle + 0.02);
    // Every miss read the database and filled the cache.
    const c = cold.details.caches['cache']!;
    expect(cold.details.databases['db']!.completed).toBe(c.misses);
    expect(c.sets).toBe(c.misses);
  });
});
