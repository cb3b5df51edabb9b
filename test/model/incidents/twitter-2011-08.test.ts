import { describe, expect, it } from 'vitest';
import { rehearse, SEEDS } from './support.ts';

/**
 * Twitter 2011-08 (incidents.md §2): two shards drop packets; each client ejects them on its own
 * and rehashes their keys to the next server on the ring, for itself only. Writers and readers
 * disagree about where a key lives. Profile: twitter-2011-08-client-ejection.yaml.
 */
describe('twitter-2011-08-client-ejection', () => {
  const PROFILE = 'twitter-2011-08-client-ejection';
  type CacheDetails = { hits: number; staleReads: number; copiesOfTop100: { mean: number; max: number } };
  const cacheOf = (run: Awaited<ReturnType<typeof rehearse>>) => run.details.caches['user-cache'] as unknown as CacheDetails;
  // Without ejection the only stale reads are the write race (a read between the database write
  // and the cache set): ~0.01% of hits here. Ejection must add well above that.
  const RACE_ONLY = 0.0005;

  it.each(SEEDS)('seed %i with lossy shards: popular keys on two servers, stale reads well above the write race', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed);
    const cache = cacheOf(run);
    expect(run.details.clientGroups['rails-to-cache']!.markDowns).toBeGreaterThan(0);
    expect(cache.staleReads / cache.hits).toBeGreaterThan(10 * RACE_ONLY);
    // 2 of 20 shards are lossy, so ~10% of the top keys live there; a client that ejects one
    // fills and writes them on the next server: those keys exist twice.
    expect(cache.copiesOfTop100.max).toBeGreaterThanOrEqual(2);
    expect(cache.copiesOfTop100.mean).toBeGreaterThan(1.03);
  });

  it.each(SEEDS)('seed %i with IRQ affinity (no packet loss): nothing ejected, one copy each, only the write race', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.caches.user-cache.packetLoss.probability=0']);
    const cache = cacheOf(run);
    expect(run.details.clientGroups['rails-to-cache']!.markDowns).toBe(0);
    expect(cache.copiesOfTop100.max).toBe(1);
    expect(cache.staleReads / cache.hits).toBeLessThan(RACE_ONLY);
    expect(run.details.requests.failed).toBe(0);
  });

  it('longer ejection, more stale reads (model-notes §1.2: stale fraction grows with the ejection time)', { timeout: 30_000 }, async () => {
    const stale = async (duration: string) => cacheOf(await rehearse(PROFILE, 1, [`topology.clientGroups.rails-to-cache.markDown.duration=${duration}`])).staleReads;
    expect(await stale('30s')).toBeGreaterThan(await stale('3s'));
  });
});
