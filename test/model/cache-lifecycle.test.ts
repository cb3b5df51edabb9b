import { describe, expect, it } from 'vitest';
import { mean } from './incidents/support.ts';
import { runModel } from './support/run.ts';

const SEEDS = [1, 2, 3] as const;

/** 1,000 requests/s of 4 keys for 30 s through api → cache (look-aside, fill) → db; cache options under test. */
function lookAside(seed: number, cache: Record<string, unknown>, extra: { mix?: { kind: string; weight: number }[]; timeline?: unknown[]; calls?: unknown[] } = {}) {
  return {
    seed,
    arrivals: 'poisson' as const,
    phases: [{ type: 'steady' as const, rate: 1000, duration: 30 }],
    batch: 4,
    keys: { count: 200 },
    ...(extra.mix ? { mix: extra.mix } : {}),
    topology: {
      entry: 'api',
      clientGroups: { mc: { timeout: '1s' }, store: {} },
      services: {
        api: {
          workers: 'inf',
          serviceTime: '100us',
          calls: extra.calls ?? [{ to: 'cache', via: 'mc', perItem: true, onMiss: { to: 'db', via: 'store' } }],
        },
      },
      caches: { cache: { shards: 4, workers: 'inf', serviceTime: '50us', warm: true, ...cache } },
      databases: { db: { concurrency: 100, latency: '1ms' } },
      timeline: extra.timeline ?? [],
    },
  };
}

type CacheDetails = { gets: number; hits: number; expired: number; staleReads: number; rejoinFlushes: number };
const cacheOf = (run: Awaited<ReturnType<typeof runModel>>) => run.details.caches['cache'] as unknown as CacheDetails;

describe('cache ttl: expiry misses', () => {
  it.each(SEEDS)('seed %i: every key expires each ttl and misses once; without a ttl a warm cache never misses', { timeout: 30_000 }, async (seed) => {
    const forever = cacheOf(await runModel(lookAside(seed, {})));
    expect(forever.hits).toBe(forever.gets);
    expect(forever.expired).toBe(0);
    const ttl = cacheOf(await runModel(lookAside(seed, { ttl: '2s' })));
    // 200 keys, each read ~20 times a second: one expiry miss per key per ~2 s.
    const perKeyPerTtl = ttl.expired / 200 / (30 / 2);
    expect(perKeyPerTtl).toBeGreaterThan(0.8);
    expect(perKeyPerTtl).toBeLessThanOrEqual(1);
    // Every miss is an expiry, or a read of the same key before the refill lands.
    expect(ttl.gets - ttl.hits).toBeGreaterThanOrEqual(ttl.expired);
    expect(ttl.gets - ttl.hits).toBeLessThan(1.1 * ttl.expired);
  });
});

describe('flush on rejoin: stale data against cold misses', () => {
  // Reads and writes (the write updates the db, then sets the cache at the key's current owner).
  // A shard leaves at 10 s and rejoins at 20 s; while it is out its keys are written elsewhere.
  const options = (flushOnRejoin: boolean) => ({
    cache: { copies: true, placement: 'ketama', flushOnRejoin },
    extra: {
      mix: [
        { kind: 'get', weight: 9 },
        { kind: 'set', weight: 1 },
      ],
      calls: [
        { to: 'cache', via: 'mc', perItem: true, kinds: ['get'], onMiss: { to: 'db', via: 'store' } },
        { to: 'db', via: 'store', perItem: true, kinds: ['set'], write: true },
        { to: 'cache', via: 'mc', perItem: true, kinds: ['set'], write: true },
      ],
      timeline: [
        { type: 'removeShards', at: '10s', cache: 'cache', count: 1 },
        { type: 'addShards', at: '20s', cache: 'cache', count: 1 },
      ],
    },
  });

  it.each(SEEDS)(
    'seed %i: without a flush the shard comes back with old copies (stale reads); flushed, it comes back cold (misses, no stale read)',
    { timeout: 30_000 },
    async (seed) => {
      const stale = await runModel(lookAside(seed, options(false).cache, options(false).extra));
      const flushed = await runModel(lookAside(seed, options(true).cache, options(true).extra));
      expect(cacheOf(stale).staleReads).toBeGreaterThan(0);
      expect(cacheOf(stale).rejoinFlushes).toBe(0);
      expect(cacheOf(flushed).staleReads).toBe(0);
      expect(cacheOf(flushed).rejoinFlushes).toBe(1);
      const hitAfterRejoin = (run: Awaited<ReturnType<typeof runModel>>) =>
        mean(
          run.recorder.intervals.map((g) => g['hitRatio.cache']!),
          20,
          21,
        );
      expect(hitAfterRejoin(flushed)).toBeLessThan(hitAfterRejoin(stale));
      // The rejoined shard is the one that left (slot 3), not a new one: 4 shards again.
      expect(stale.recorder.intervals[25]!['shards.cache']).toBe(4);
    },
  );
});
