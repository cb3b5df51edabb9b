import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './support.ts';

/**
 * Twitter 2018-06 (incidents.md §2): failover onto an under-provisioned tweet cache; a periodic
 * capacity dip (10 s every 60 s, from 25 s) → timeouts → each client marks nodes dead (12 failures,
 * 30 s) → their keys go to the database → its quota rejects → success ~50%.
 * Profile: twitter-2018-06-failover.yaml (the failover doubles traffic to 4,000/s at 20 s).
 */
describe('twitter-2018-06-failover', () => {
  const PROFILE = 'twitter-2018-06-failover';
  const OFFERED = 4000;
  const QUOTA = 2000;
  const PAIRS = 50 * 10; // client instances × shards: each pair has its own mark

  it.each(SEEDS)('seed %i on 10 shards: the dip marks most nodes dead everywhere and the quota halves success', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed);
    const marked = series(run, 'markedDown.tweets-to-cache');
    expect(Math.max(...marked.slice(0, 25))).toBe(0);
    // During the dip every shard runs at 140%: every instance sees 12 timeouts in a row from
    // every shard within a second or two. Most pairs are marked (not all: a few instances get lucky).
    expect(mean(marked, 30, 55)).toBeGreaterThan(0.6 * PAIRS);
    // With most reads sent to the database, the quota bounds success: ≈ (quota + reads of the few
    // unmarked pairs) / load, i.e. around half.
    const success = mean(series(run, 'goodputRps'), 30, 55) / OFFERED;
    expect(success).toBeGreaterThan(QUOTA / OFFERED - 0.1);
    expect(success).toBeLessThan(QUOTA / OFFERED + 0.25);
    expect(run.recorder.failures('rate_limited')).toBeGreaterThan(0.5 * run.details.requests.failed);
    // The marks expire 30 s after they were set (~55–60 s); until the next dip (85 s) all is well.
    expect(mean(series(run, 'goodputRps'), 62, 82) / OFFERED).toBeGreaterThan(0.97);
  });

  it.each(SEEDS)('seed %i on 20 shards: the dip only takes a shard to 70%, nothing is marked dead', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.caches.tweet-cache.shards=20']);
    expect(Math.max(...series(run, 'markedDown.tweets-to-cache'))).toBe(0);
    expect(run.recorder.failures('rate_limited')).toBe(0);
    // M/M/1 at 70% with 3.5 ms service: a 100 ms timeout is ~8.6 mean sojourns away; well under 0.5%.
    expect(run.details.requests.failed).toBeLessThan(0.005 * run.details.requests.started);
  });
});
