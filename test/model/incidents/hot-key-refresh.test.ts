import { describe, expect, it } from 'vitest';
import { rehearse, SEEDS } from './support.ts';

/**
 * The local hot-key cache of viral-hot-key.yaml with a short ttl (2 s): without refresh a
 * promoted key is forgotten at expiry and its reads go back to the shard until the sampled
 * detector finds it hot again (another promotion); with refresh the first read after expiry
 * renews it, so each instance promotes the selfie once and keeps it.
 */
describe('hot-key cache: refresh on expiry instead of re-detection', () => {
  const HOT_KEYS = (refresh: boolean) => `topology.clientGroups.tweets-to-cache.hotKeyCache={sampleRate: 0.1, threshold: 3, ttl: 2s, refresh: ${refresh}}`;
  type HotKeyStats = { promotions: number; localHits: number; refreshes: number };
  const hotKeysOf = (run: Awaited<ReturnType<typeof rehearse>>) => (run.details.clientGroups['tweets-to-cache'] as unknown as { hotKeys: HotKeyStats; instances: number }).hotKeys;

  it.each(SEEDS)('seed %i: refresh renews promoted keys (fewer promotions, more local hits) where expiry re-detects them', { timeout: 60_000 }, async (seed) => {
    const overrides = ['phases[0].duration=80s'];
    const forget = hotKeysOf(await rehearse('viral-hot-key', seed, [...overrides, HOT_KEYS(false)]));
    const refresh = hotKeysOf(await rehearse('viral-hot-key', seed, [...overrides, HOT_KEYS(true)]));
    expect(forget.refreshes).toBe(0);
    expect(refresh.refreshes).toBeGreaterThan(0);
    expect(refresh.promotions).toBeLessThan(forget.promotions);
    expect(refresh.localHits).toBeGreaterThan(forget.localHits);
  });
});
