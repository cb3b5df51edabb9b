import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './support.ts';

/**
 * Twitter 2014-01 (incidents.md §2): the cap on client connections removed; a 5 s burst (20–25 s)
 * makes clients open a connection per outstanding request; the connections stay open (idle pools
 * keep them), each costs the cache kernel time, the slower cache times clients out and they retry
 * on new connections. Profile: twitter-2014-01-connection-storm.yaml.
 */
describe('twitter-2014-01-connection-storm', () => {
  const PROFILE = 'twitter-2014-01-connection-storm';
  const OFFERED = 4000;
  // Service time × (1 + 0.5 × connections/1000) doubles at 2,000 connections per shard: the
  // shards (50% busy without connections) then have no capacity left above the load.
  const SATURATING_CONNECTIONS = 2000;

  it.each(SEEDS)('seed %i without the cap: connections per shard stay near saturation and success stays low after the burst', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed);
    const conns = series(run, 'shardConnectionsMax.tweet-cache');
    expect(Math.max(...conns.slice(0, 20))).toBeLessThan(150);
    // After the burst the count settles where overhead eats the headroom — ~30× the steady state.
    expect(mean(conns, 35, 60)).toBeGreaterThan(0.85 * SATURATING_CONNECTIONS);
    expect(mean(series(run, 'goodputRps'), 35, 60) / OFFERED).toBeLessThan(0.35);
    // Retries on new connections: every timed-out attempt closes its connection into TIME_WAIT.
    expect(run.details.clientGroups['tweets-to-cache']!.closes).toBeGreaterThan(run.details.clientGroups['tweets-to-cache']!.timeouts * 0.99);
  });

  it.each(SEEDS)('seed %i with the cap of 16 per client and server: the burst drains and the system recovers', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.clientGroups.tweets-to-cache.pool.maxOpen=16']);
    // 50 instances × 16 = 800 connections per shard at most: factor ≤ 1.4, 70% busy.
    expect(Math.max(...series(run, 'shardConnectionsMax.tweet-cache'))).toBeLessThanOrEqual(800);
    expect(mean(series(run, 'goodputRps'), 40, 60) / OFFERED).toBeGreaterThan(0.97);
  });
});
