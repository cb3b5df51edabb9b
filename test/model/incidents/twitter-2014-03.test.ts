import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './support.ts';

/**
 * Twitter 2014-03 (incidents.md §2): the Oscars selfie. One tweet rises to 30% of reads (20–30 s);
 * its shard's container has a CPU quota of 1 core per 100 ms period, which the hot shard needs
 * 1.4× of; throttled work times out and is retried. Profile: twitter-2014-03-hot-key.yaml.
 */
describe('twitter-2014-03-hot-key', () => {
  const PROFILE = 'twitter-2014-03-hot-key';
  const OFFERED = 4000;
  const PERIODS_PER_S = 10;
  // Reads on the hot shard: the 30% hot share plus its ~1/20 of the rest.
  const HOT_SHARD_SHARE = 0.3 + 0.7 / 20;
  const perSecond = (s: number[], from: number, to: number) => (s[to]! - s[from]!) / (to - from);

  it.each(SEEDS)('seed %i without an in-process cache: the hot shard is throttled every period and its reads fail', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed);
    const throttled = series(run, 'throttledOps.tweet-cache');
    expect(throttled[19]).toBe(0);
    // 1,400 ops/s of work against 1,000/s of quota: the booking runs past every period boundary.
    expect(perSecond(throttled, 35, 69)).toBeGreaterThanOrEqual(0.9 * PERIODS_PER_S);
    // Timed-out attempts are retried (2 more each): attempts well above the offered load.
    expect(mean(series(run, 'attemptsRps.tweets-to-cache'), 35, 69)).toBeGreaterThan(1.4 * OFFERED);
    // Reads of the hot shard fail; the other 19 shards serve theirs.
    const success = mean(series(run, 'goodputRps'), 35, 69) / OFFERED;
    expect(success).toBeGreaterThan(1 - HOT_SHARD_SHARE - 0.1);
    expect(success).toBeLessThan(1 - HOT_SHARD_SHARE + 0.1);
  });

  it.each(SEEDS)('seed %i with hot-key promotion to an in-process cache: the hot tweet never reaches its shard', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.clientGroups.tweets-to-cache.hotKeyCache={sampleRate: 0.1, threshold: 3}']);
    // Each instance sees ~24 hot reads/s → 2.4 samples/s: promoted within ~1–2 s of the rise,
    // long before the hot share exceeds the quota (~26 s).
    expect(series(run, 'throttledOps.tweet-cache').at(-1)!).toBeLessThan(20);
    expect(run.details.requests.failed).toBeLessThan(0.005 * run.details.requests.started);
    expect(series(run, 'hotKeyLocalHits.tweets-to-cache').at(-1)!).toBeGreaterThan(0.2 * OFFERED * 30);
  });
});
