import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './support.ts';

/**
 * Twitter 2014-01 (incidents.md §2): the cap on client connections removed; a 5 s burst (20–25 s)
 * makes clients open a connection per outstanding request; each costs the cache kernel time, the
 * slower cache times clients out, they close and retry on new connections — while the shard keeps
 * each closed connection's fd until it reaches the request queued on it. The fd limit (4,000) is
 * reached, the accept queue fills, the health monitor's probes fail and it restarts shards, which
 * come back cold. Profile: twitter-2014-01-connection-storm.yaml.
 */
describe('twitter-2014-01-connection-storm', () => {
  const PROFILE = 'twitter-2014-01-connection-storm';
  const OFFERED = 4000;
  const FD_LIMIT = 4000;
  type CacheDetails = { connectionsHighWater: number; acceptQueued: number; acceptOverflows: number; monitorRestarts: number };
  const cacheOf = (run: Awaited<ReturnType<typeof rehearse>>) => run.details.caches['tweet-cache'] as unknown as CacheDetails;
  const restarts = (run: Awaited<ReturnType<typeof rehearse>>) => series(run, 'monitorRestarts.shard-health');

  it.each(SEEDS)(
    'seed %i without the cap: the fd limit is reached, the accept queue overflows, the monitor restarts shards, success stays low after the burst',
    { timeout: 60_000 },
    async (seed) => {
      const run = await rehearse(PROFILE, seed);
      const cache = cacheOf(run);
      expect(Math.max(...series(run, 'shardConnectionsMax.tweet-cache').slice(0, 20))).toBeLessThan(150);
      expect(cache.connectionsHighWater).toBe(FD_LIMIT);
      expect(cache.acceptQueued).toBeGreaterThan(0);
      expect(cache.acceptOverflows).toBeGreaterThan(0);
      const restarted = restarts(run);
      expect(restarted[19]).toBe(0);
      expect(restarted[59]).toBeGreaterThan(0);
      expect(cache.monitorRestarts).toBe(restarted[59]);
      // Restarted shards refuse for 5 s and come back cold: the load is back at 4,000/s, success is not.
      expect(mean(series(run, 'goodputRps'), 25, 35) / OFFERED).toBeLessThan(0.8);
    },
  );

  it.each(SEEDS)('seed %i with a lower fd limit and backlog (600, 128), clients unfixed: no restart, the burst drains', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.caches.tweet-cache.connectionLimit=600', 'topology.caches.tweet-cache.backlog=128']);
    // At most 600 fds and 128 parked connections, one request each: ~730 × 0.6 ms of dead work, under the 600 ms timeout.
    expect(cacheOf(run).connectionsHighWater).toBe(600);
    expect(Math.max(...restarts(run))).toBe(0);
    expect(mean(series(run, 'goodputRps'), 25, 60) / OFFERED).toBeGreaterThan(0.97);
  });

  it.each(SEEDS)('seed %i with the cap of 16 per client and server: no restart, the system recovers', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.clientGroups.tweets-to-cache.pool.maxOpen=16']);
    // 50 instances × 16 = 800 client connections per shard (+1, the monitor's); closed ones whose
    // request is still queued keep their fd a little longer.
    expect(cacheOf(run).connectionsHighWater).toBeLessThan(FD_LIMIT / 4);
    expect(Math.max(...restarts(run))).toBe(0);
    expect(mean(series(run, 'goodputRps'), 40, 60) / OFFERED).toBeGreaterThan(0.97);
  });
});
