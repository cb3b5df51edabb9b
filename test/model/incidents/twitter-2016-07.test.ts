import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './support.ts';

/**
 * Twitter 2016-07 (incidents.md §2): cache instances added at once (6 to 32 here, the 115-to-~610
 * ratio) move ~16% of keys to empty shards; the misses overload the database, whose reads then time
 * out, and a read that fails does not fill the cache: the hit ratio steps down and stays down
 * (HotOS'21 §2.2). Profile: twitter-2016-07-shards-added.yaml; the shards join at 30 s.
 */
describe('twitter-2016-07-shards-added', () => {
  const PROFILE = 'twitter-2016-07-shards-added';
  const OFFERED = 2000;
  const MOVED = 6 / 38;

  it.each(SEEDS)('seed %i, all at once: the hit ratio drops by the moved share and never comes back', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed);
    const hit = series(run, 'hitRatio.user-cache');
    expect(mean(hit, 5, 30)).toBeGreaterThan(0.99);
    // Moved keys miss: 1 − 6/38 ≈ 0.84 if misses were spread evenly; Zipf weights the moved hot keys
    // by chance, so allow ±5 points.
    const early = mean(hit, 32, 42);
    expect(early).toBeGreaterThan(1 - MOVED - 0.05);
    expect(early).toBeLessThan(1 - MOVED + 0.05);
    // No refill: a minute later it is no higher (a database read that times out fills nothing).
    expect(mean(hit, 80, 90)).toBeLessThan(early + 0.03);
    // The database's backlog only grows: misses arrive faster (~320/s) than it serves (~290/s,
    // falling as its latency grows with the backlog).
    const db = series(run, 'dbInFlight.user-db');
    expect(db.at(-1)!).toBeGreaterThan(db[45]! + 1000);
    // Every read that misses fails: success ≈ hit ratio.
    expect(mean(series(run, 'goodputRps'), 60, 90) / OFFERED).toBeLessThan(mean(hit, 60, 90) + 0.03);
  });

  it.each(SEEDS)('seed %i, paced one per 10 s: each step moves ~3%, the database keeps up, nothing fails', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.timeline[0].every=10s']);
    expect(run.details.requests.failed).toBeLessThanOrEqual(0.001 * run.details.requests.started);
    expect(series(run, 'shards.user-cache').at(-1)).toBe(38);
    expect(Math.max(...series(run, 'dbInFlight.user-db'))).toBeLessThan(50);
  });

  it('all at once but with database admission control: reads fail fast instead of late, and the cache refills', { timeout: 30_000 }, async () => {
    const run = await rehearse(PROFILE, 1, ['topology.databases.user-db.queue.limit=4']);
    const hit = series(run, 'hitRatio.user-cache');
    expect(mean(hit, 80, 90)).toBeGreaterThan(mean(hit, 31, 36) + 0.03);
    expect(run.recorder.failures('queue_full')).toBe(run.details.requests.failed);
    expect(run.details.requests.failed).toBeLessThan(0.01 * run.details.requests.started);
  });
});
