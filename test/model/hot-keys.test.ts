import { describe, expect, it } from 'vitest';
import { HotKeyCache } from '../../src/model/components/client-group/hot-keys.ts';
import { HotKeyCacheSchema } from '../../src/profile/topology/client-group.ts';
import { Rng } from '../../src/schedule/rng.ts';

const KEY = 7;
const NAMED = 100;
const S = 1_000_000;

/** One instance that samples every read (so detection depends only on the window), 3 samples in 1 s make a key hot. */
function detector(ttl = '1s', refresh = false): HotKeyCache {
  return new HotKeyCache(1, HotKeyCacheSchema.parse({ sampleRate: 1, threshold: 3, window: '1s', ttl, refresh }), new Rng(1), NAMED);
}

/** A read through the cache at `atUs`: served locally, or sent on (and observed). */
function read(cache: HotKeyCache, key: number, atUs: number): boolean {
  if (cache.servesLocally(0, key, atUs)) return true;
  cache.observe(0, key, atUs);
  return false;
}

describe('hot-key detector: a sliding window', () => {
  it('promotes a key whose samples straddle a window boundary (a tumbling window would have reset them)', () => {
    const cache = detector();
    for (const t of [0.7, 0.9, 1.1]) read(cache, KEY, t * S);
    expect(cache.stats.promotions).toBe(1);
    expect(read(cache, KEY, 1.2 * S)).toBe(true);
  });

  it('forgets samples older than the window', () => {
    const cache = detector();
    for (const t of [0.1, 0.5, 1.2, 1.6, 2.3]) read(cache, KEY, t * S);
    // Never 3 samples within 1 s: 0.1/0.5 age out before 1.2's third, and so on.
    expect(cache.stats.promotions).toBe(0);
    read(cache, KEY, 2.4 * S);
    expect(cache.stats.promotions).toBe(1);
  });

  it('counts the named hot keys apart: reads, local hits, refreshes and promotions', () => {
    const cache = detector('1s', true);
    for (const t of [0, 0.1, 0.2]) read(cache, NAMED, t * S); // detection: 3 reads to the shard
    expect(read(cache, NAMED, 0.5 * S)).toBe(true);
    expect(read(cache, NAMED, 1.3 * S)).toBe(false); // expired at 1.2 s: this read refreshes it
    expect(read(cache, NAMED, 1.4 * S)).toBe(true);
    read(cache, KEY, 1.5 * S);
    expect({ ...cache.stats.namedKeys }).toEqual({ reads: 6, localHits: 2, refreshes: 1, promotions: 1 });
    expect(cache.stats.localHits).toBe(2);
  });
});
