import { describe, expect, it } from 'vitest';
import { rehearse, SEEDS } from './support.ts';

/**
 * `staleReads` counts only copies out of date for longer than the cache's `staleAfter` (1 s): the
 * normal window between a database write and the cache set after it — ~100 reads in 10 minutes
 * of twitter-2011-08 with no fault at all — is `staleReadsInWindow`, not a fault.
 */
describe('stale reads: the write-to-update window apart from copies left stale by a fault', () => {
  const PROFILE = 'twitter-2011-08-client-ejection';
  type CacheDetails = { hits: number; staleReads: number; staleReadsInWindow: number };
  const cacheOf = (run: Awaited<ReturnType<typeof rehearse>>) => run.details.caches['user-cache'] as unknown as CacheDetails;

  it.each(SEEDS)('seed %i with no fault (IRQ affinity): no stale read, only reads inside the write window', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.caches.user-cache.packetLoss.probability=0']);
    const cache = cacheOf(run);
    expect(cache.staleReads).toBe(0);
    expect(cache.staleReadsInWindow).toBeGreaterThan(0);
    expect(run.recorder.intervals.at(-1)!['staleReads.user-cache']).toBe(0);
  });

  it.each(SEEDS)('seed %i with lossy shards: client ejection leaves copies stale beyond the window — more of them than inside it', { timeout: 60_000 }, async (seed) => {
    const cache = cacheOf(await rehearse(PROFILE, seed));
    expect(cache.staleReads).toBeGreaterThan(cache.staleReadsInWindow);
  });
});
