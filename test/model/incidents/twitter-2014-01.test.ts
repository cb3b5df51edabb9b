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
  type MonitorDetails = { probes: number; failedProbes: number; connectFailures: number; restarts: number };
  const monitorOf = (run: Awaited<ReturnType<typeof rehearse>>) => (run.details as unknown as { monitors: Record<string, MonitorDetails> }).monitors['shard-health']!;
  const success = (run: Awaited<ReturnType<typeof rehearse>>, from: number, to: number) => mean(series(run, 'goodputRps'), from, to) / OFFERED;
  const CACHE_FIX = ['topology.caches.tweet-cache.connectionLimit=600', 'topology.caches.tweet-cache.backlog=128'];
  // The clients of the incident's second round (2014-03): pipelining so 1–2 connections suffice, and a retry budget.
  const CLIENT_FIX = [
    'topology.clientGroups.tweets-to-cache.pool.maxOpen=2',
    'topology.clientGroups.tweets-to-cache.pool.pipelining=16',
    'topology.clientGroups.tweets-to-cache.retries.tokenBucket={capacity: 10, perSuccess: 0.1}',
  ];
  const REUSE = 'topology.monitors.shard-health.connection=reuse';
  // The incident's own client timeout, against which the shipped (×4-scaled) 600 ms is generous.
  const TIMEOUT_150 = 'topology.clientGroups.tweets-to-cache.timeout=150ms';
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
      // A restart in the last second is in the details before any sample shows it.
      expect(cache.monitorRestarts).toBeGreaterThanOrEqual(restarted[59]!);
      // Restarted shards refuse for 5 s and come back cold: the load is back at 4,000/s, success is not.
      expect(mean(series(run, 'goodputRps'), 25, 35) / OFFERED).toBeLessThan(0.8);
    },
  );

  it.each(SEEDS)(
    'seed %i with a lower fd limit and backlog (600, 128), clients unfixed: the burst drains — unless the health check needs a new connection too',
    { timeout: 60_000 },
    async (seed) => {
      // Probing over a connection it keeps, the monitor sees what clients with open connections see.
      const reused = await rehearse(PROFILE, seed, [...CACHE_FIX, REUSE]);
      // At most 600 fds and 128 parked connections, one request each: ~730 × 0.6 ms of dead work, under the 600 ms timeout.
      expect(cacheOf(reused).connectionsHighWater).toBe(600);
      expect(Math.max(...restarts(reused))).toBe(0);
      expect(success(reused, 25, 60)).toBeGreaterThan(0.97);
      // A health check on a new connection competes for the smaller fd table and backlog the burst
      // fills: it cannot connect, and restarts shards that were only saturated — each comes back
      // cold and its reconnects fill the table again.
      const fresh = await rehearse(PROFILE, seed, CACHE_FIX);
      expect(monitorOf(fresh).connectFailures).toBeGreaterThan(0);
      expect(monitorOf(fresh).restarts).toBeGreaterThan(0);
      expect(success(fresh, 25, 60)).toBeLessThan(success(reused, 25, 60));
    },
  );

  it.each(SEEDS)(
    'seed %i, the cache fix at the incident’s 150 ms timeout: a shard stuck behind 600 fds of dead work — a reused probe connection never notices, a new one does and restarts it',
    { timeout: 60_000 },
    async (seed) => {
      // 728 connections × ~0.5 ms of queued work ≈ 360 ms: past every client's 150 ms, inside the probe's 600 ms.
      const reused = await rehearse(PROFILE, seed, [...CACHE_FIX, TIMEOUT_150, REUSE]);
      expect(monitorOf(reused).failedProbes).toBe(0);
      expect(monitorOf(reused).restarts).toBe(0);
      expect(success(reused, 40, 60)).toBeLessThan(0.5);
      // A new connection waits in the full accept queue, or is dropped beyond it, like every client's retry.
      const fresh = await rehearse(PROFILE, seed, [...CACHE_FIX, TIMEOUT_150]);
      expect(monitorOf(fresh).connectFailures).toBeGreaterThan(0);
      expect(monitorOf(fresh).restarts).toBeGreaterThan(0);
      // Each restart drops the dead work; success recovers for a while after it, then the storm re-arms.
      expect(success(fresh, 40, 60)).toBeGreaterThan(success(reused, 40, 60));
    },
  );

  it.each(SEEDS)(
    'seed %i with the clients fixed (pipelining, 2 connections, a retry budget), cache unfixed: the burst cannot fill the fd table; success recovers at 600 ms and at 150 ms',
    { timeout: 60_000 },
    async (seed) => {
      const storm = await rehearse(PROFILE, seed);
      const fixed = await rehearse(PROFILE, seed, CLIENT_FIX);
      // 50 instances × 2 connections (+1, the monitor's probe): nothing for a storm to grow from.
      expect(cacheOf(fixed).connectionsHighWater).toBeLessThanOrEqual(50 * 2 + 1);
      // The 2× burst still saturates the shards for a moment, so a probe may time out behind it; the storm's restart cycle does not start.
      expect(monitorOf(fixed).restarts).toBeLessThan(monitorOf(storm).restarts);
      expect(success(fixed, 25, 35)).toBeGreaterThan(success(storm, 25, 35));
      expect(success(fixed, 40, 60)).toBeGreaterThan(0.97);
      // The budget: retries cost a token each, earned at 0.1 per success, 10 per instance to start.
      const group = fixed.details.clientGroups['tweets-to-cache']!;
      expect(group.retries).toBeLessThanOrEqual(50 * 10 + 0.1 * fixed.details.requests.succeeded);
      // At the incident's 150 ms the burst still times requests out (no cache fix), but the fixed clients recover; the cache fix alone does not.
      const fixedAt150 = await rehearse(PROFILE, seed, [...CLIENT_FIX, TIMEOUT_150]);
      const cacheFixAt150 = await rehearse(PROFILE, seed, [...CACHE_FIX, TIMEOUT_150]);
      expect(success(fixedAt150, 40, 60)).toBeGreaterThan(0.97);
      expect(success(fixedAt150, 40, 60)).toBeGreaterThan(success(cacheFixAt150, 40, 60));
    },
  );

  it.each(SEEDS)('seed %i with the cap of 16 per client and server: no restart, the system recovers', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.clientGroups.tweets-to-cache.pool.maxOpen=16']);
    // 50 instances × 16 = 800 client connections per shard (+1, the monitor's); closed ones whose
    // request is still queued keep their fd a little longer.
    expect(cacheOf(run).connectionsHighWater).toBeLessThan(FD_LIMIT / 4);
    expect(Math.max(...restarts(run))).toBe(0);
    expect(mean(series(run, 'goodputRps'), 40, 60) / OFFERED).toBeGreaterThan(0.97);
  });
});
