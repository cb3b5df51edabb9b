import type { Rng } from '../../../schedule/rng.ts';

export class HotKeyStats {
  sampled = 0;
  promotions = 0;
  /** Cache reads answered from the in-process cache. */
  localHits = 0;
  /** Expired keys renewed by a read (refresh) instead of waiting to be detected again. */
  refreshes = 0;
}

/**
 * Hot-key detection and an in-process cache for one client group, per instance: a sampled share of
 * cache reads is counted per key within a window; a key reaching the threshold is promoted and
 * served locally until its time-to-live ends. Maps are touched only for sampled reads and
 * promotions, so the per-call cost is one random draw and one map lookup.
 */
export class HotKeyCache {
  readonly stats = new HotKeyStats();
  private readonly counts: Map<number, number>[];
  private readonly promotedUntil: Map<number, number>[];
  private windowEndUs: number;

  constructor(
    instances: number,
    private readonly sampleRate: number,
    private readonly threshold: number,
    private readonly windowUs: number,
    private readonly ttlUs: number,
    private readonly rng: Rng,
    /** Renew an expired key on its next read instead of forgetting it. */
    private readonly refresh = false,
  ) {
    this.counts = Array.from({ length: instances }, () => new Map());
    this.promotedUntil = Array.from({ length: instances }, () => new Map());
    this.windowEndUs = windowUs;
  }

  /** True when `instance` serves `key` from its in-process cache now. */
  servesLocally(instance: number, key: number, nowUs: number): boolean {
    const promoted = this.promotedUntil[instance]!;
    if (promoted.size === 0) return false;
    const until = promoted.get(key);
    if (until === undefined) return false;
    if (until > nowUs) {
      this.stats.localHits++;
      return true;
    }
    if (this.refresh && nowUs < until + this.ttlUs) {
      // This read goes to the cache and brings the value back: the key stays promoted.
      promoted.set(key, nowUs + this.ttlUs);
      this.stats.refreshes++;
      return false;
    }
    promoted.delete(key);
    return false;
  }

  /** A read that goes to the cache: maybe sampled, maybe promoting its key. */
  observe(instance: number, key: number, nowUs: number): void {
    if (nowUs >= this.windowEndUs) {
      for (const c of this.counts) c.clear();
      this.windowEndUs = (Math.floor(nowUs / this.windowUs) + 1) * this.windowUs;
    }
    if (this.rng.next() >= this.sampleRate) return;
    this.stats.sampled++;
    const counts = this.counts[instance]!;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n >= this.threshold) {
      counts.delete(key);
      this.promotedUntil[instance]!.set(key, nowUs + this.ttlUs);
      this.stats.promotions++;
    }
  }
}
