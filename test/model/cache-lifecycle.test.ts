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

describe('rejoin: a shard back from being away, cold (flushed) or warm (stale copies), by cause', () => {
  // Reads and writes (the write updates the db, then sets the cache at the key's owner). Shard 3 is
  // away from 10 s (out of the ring, down, or restarted by a monitor); writes of its keys made
  // meanwhile go elsewhere or fail, so what it still holds when it comes back is behind.
  const mix = [
    { kind: 'get', weight: 9 },
    { kind: 'set', weight: 1 },
  ];
  const calls = [
    { to: 'cache', via: 'mc', perItem: true, kinds: ['get'], onMiss: { to: 'db', via: 'store' } },
    { to: 'db', via: 'store', perItem: true, kinds: ['set'], write: true },
    { to: 'cache', via: 'mc', perItem: true, kinds: ['set'], write: true, optional: true },
  ];
  type Away = { cause: 'membership' | 'outage' | 'restart'; timeline: unknown[]; monitors?: unknown };
  const AWAY: Away[] = [
    {
      cause: 'membership',
      timeline: [
        { type: 'removeShards', at: '10s', cache: 'cache', shards: 3 },
        { type: 'addShards', at: '20s', cache: 'cache', count: 1 },
      ],
    },
    { cause: 'outage', timeline: [{ type: 'blip', at: '10s', for: '10s', cache: 'cache', shards: 3, down: true }] },
    {
      // Ops on shard 3 slow past the probe's timeout: the monitor restarts it (down 8 s).
      cause: 'restart',
      timeline: [{ type: 'blip', at: '10s', for: '2s', cache: 'cache', shards: 3, latency: '800ms' }],
      monitors: { health: { cache: 'cache', every: '500ms', timeout: '300ms', failures: 2, restartTime: '8s' } },
    },
  ];
  const run = (seed: number, away: Away, mode: 'cold' | 'warm') => {
    const profile = lookAside(seed, { copies: true, placement: 'ketama', rejoin: { [away.cause]: mode } }, { mix, calls, timeline: away.timeline });
    if (away.monitors) (profile.topology as Record<string, unknown>)['monitors'] = away.monitors;
    return runModel(profile);
  };
  type Details = CacheDetails & { staleReadsByCause: Record<string, number>; monitorRestarts: number };
  const hitAfter = (r: Awaited<ReturnType<typeof runModel>>, from: number) =>
    mean(
      r.recorder.intervals.map((g) => g['hitRatio.cache']!),
      from,
      from + 1,
    );

  for (const away of AWAY) {
    it.each(SEEDS)(
      `${away.cause}, seed %i: warm comes back with old copies (stale reads of that cause); cold comes back empty (misses, none stale)`,
      { timeout: 30_000 },
      async (seed) => {
        const warmRun = await run(seed, away, 'warm');
        const coldRun = await run(seed, away, 'cold');
        const warm = cacheOf(warmRun) as Details;
        const cold = cacheOf(coldRun) as Details;
        if (away.cause === 'restart') expect(warm.monitorRestarts).toBe(1);
        expect(warm.staleReads).toBeGreaterThan(0);
        expect(warm.staleReadsByCause[away.cause]).toBe(warm.staleReads);
        expect(warm.rejoinFlushes).toBe(0);
        expect(cold.staleReads).toBe(0);
        // A restart empties the process itself; the other causes flush as the shard comes back.
        expect(cold.rejoinFlushes).toBe(away.cause === 'restart' ? 0 : 1);
        expect(cold.gets - cold.hits).toBeGreaterThan(warm.gets - warm.hits);
      },
    );
  }

  it('removeShards names the shard that leaves; addShards brings that one back', { timeout: 30_000 }, async () => {
    const named = await runModel(
      lookAside(
        1,
        { placement: 'ketama' },
        {
          timeline: [
            { type: 'removeShards', at: '10s', cache: 'cache', shards: [1] },
            { type: 'addShards', at: '20s', cache: 'cache', count: 1 },
          ],
        },
      ),
    );
    const highest = await runModel(
      lookAside(
        1,
        { placement: 'ketama' },
        {
          timeline: [
            { type: 'removeShards', at: '10s', cache: 'cache', count: 1 },
            { type: 'addShards', at: '20s', cache: 'cache', count: 1 },
          ],
        },
      ),
    );
    for (const r of [named, highest]) {
      expect(r.recorder.intervals[15]!['shards.cache']).toBe(3);
      // The shard that left rejoins (4 shards again, not a fifth slot) with its keys: the hit ratio is back at once.
      expect(r.recorder.intervals[25]!['shards.cache']).toBe(4);
      expect(hitAfter(r, 21)).toBe(1);
    }
    // Keys of the shard that left miss once on the shard that takes them: a different shard, different keys.
    const missesWhileOut = (r: Awaited<ReturnType<typeof runModel>>) => cacheOf(r).gets - cacheOf(r).hits;
    expect(missesWhileOut(named)).toBeGreaterThan(0);
    expect(missesWhileOut(named)).not.toBe(missesWhileOut(highest));
  });
});
