import type { Rng } from '../../../schedule/rng.ts';
import type { HotKeyCache as HotKeyCacheSpec } from '../../../profile/topology/client-group.ts';

/** How the reads of the profile's named hot keys (`keys.hot`) were served: the fix's measure. */
export class NamedHotKeyReads {
  /** Cache reads of a named hot key through the group. */
  reads = 0;
  /** Answered from the in-process cache. */
  localHits = 0;
  /** Promotions of a named hot key (an instance that keeps it promotes it once). */
  promotions = 0;
  /** Sent to the shard to renew an expired local copy: one per ttl per instance while the key stays hot. */
  refreshes = 0;
  // The rest went to the shard while the instance did not hold the key: before the detector found
  // it, or after it was forgotten.
}

export class HotKeyStats {
  sampled = 0;
  promotions = 0;
  /** Cache reads answered from the in-process cache. */
  localHits = 0;
  /** Expired keys renewed by a read (refresh) instead of waiting to be detected again. */
  refreshes = 0;
  readonly namedKeys = new NamedHotKeyReads();
}

/**
 * The detector's sliding window for one instance: its samples in arrival order with their times,
 * and a count per key. A tumbling window would forget a hot key at every boundary and make it
 * collect `threshold` samples again from zero; the sliding one keeps the last `window` of samples,
 * as the FIFO of Twitter's detector does. Memory: the samples of one window.
 */
class SampleWindow {
  private keys = new Int32Array(16);
  private times = new Float64Array(16);
  private head = 0;
  private size = 0;
  private readonly counts = new Map<number, number>();

  /** Adds a sample of `key` and returns how many of the samples since `sinceUs` (exclusive) are of it. */
  add(key: number, nowUs: number, sinceUs: number): number {
    const mask = this.keys.length - 1;
    while (this.size > 0 && this.times[this.head]! <= sinceUs) {
      const old = this.keys[this.head]!;
      const n = this.counts.get(old)! - 1;
      if (n === 0) this.counts.delete(old);
      else this.counts.set(old, n);
      this.head = (this.head + 1) & mask;
      this.size--;
    }
    if (this.size === this.keys.length) this.grow();
    const tail = (this.head + this.size) & (this.keys.length - 1);
    this.keys[tail] = key;
    this.times[tail] = nowUs;
    this.size++;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n;
  }

  private grow(): void {
    const keys = new Int32Array(this.keys.length * 2);
    const times = new Float64Array(this.times.length * 2);
    for (let i = 0; i < this.size; i++) {
      const from = (this.head + i) & (this.keys.length - 1);
      keys[i] = this.keys[from]!;
      times[i] = this.times[from]!;
    }
    this.keys = keys;
    this.times = times;
    this.head = 0;
  }
}

/**
 * Hot-key detection and an in-process cache for one client group, per instance: a sampled share of
 * cache reads is counted per key over a sliding window; a key reaching the threshold is promoted
 * and served locally until its time-to-live ends. The window is touched only for sampled reads and
 * the maps only for those and promotions, so the per-call cost is one random draw and one lookup.
 */
export class HotKeyCache {
  readonly stats = new HotKeyStats();
  private readonly windows: SampleWindow[];
  private readonly promotedUntil: Map<number, number>[];
  private readonly sampleRate: number;
  private readonly threshold: number;
  private readonly windowUs: number;
  private readonly ttlUs: number;
  /** Renew an expired key on its next read instead of forgetting it. */
  private readonly refresh: boolean;

  constructor(
    instances: number,
    spec: HotKeyCacheSpec,
    private readonly rng: Rng,
    /** Key ids from here on are the profile's named hot keys (`keys.hot`)… */
    private readonly firstNamedKey: number,
    /** …up to here (one-hit wonders come after them). */
    private readonly namedKeyEnd = Number.POSITIVE_INFINITY,
  ) {
    ({ sampleRate: this.sampleRate, threshold: this.threshold, window: this.windowUs, ttl: this.ttlUs, refresh: this.refresh } = spec);
    this.windows = Array.from({ length: instances }, () => new SampleWindow());
    this.promotedUntil = Array.from({ length: instances }, () => new Map());
  }

  private isNamed(key: number): boolean {
    return key >= this.firstNamedKey && key < this.namedKeyEnd;
  }

  /** True when `instance` serves `key` from its in-process cache now. */
  servesLocally(instance: number, key: number, nowUs: number): boolean {
    const named = this.isNamed(key) ? this.stats.namedKeys : null;
    if (named !== null) named.reads++;
    const promoted = this.promotedUntil[instance]!;
    if (promoted.size === 0) return false;
    const until = promoted.get(key);
    if (until === undefined) return false;
    if (until > nowUs) {
      this.stats.localHits++;
      if (named !== null) named.localHits++;
      return true;
    }
    if (this.refresh && nowUs < until + this.ttlUs) {
      // This read goes to the cache and brings the value back: the key stays promoted.
      promoted.set(key, nowUs + this.ttlUs);
      this.stats.refreshes++;
      if (named !== null) named.refreshes++;
      return false;
    }
    promoted.delete(key);
    return false;
  }

  /** A read that goes to the cache: maybe sampled, maybe promoting its key. */
  observe(instance: number, key: number, nowUs: number): void {
    if (this.rng.next() >= this.sampleRate) return;
    this.stats.sampled++;
    if (this.windows[instance]!.add(key, nowUs, nowUs - this.windowUs) < this.threshold) return;
    this.promotedUntil[instance]!.set(key, nowUs + this.ttlUs);
    this.stats.promotions++;
    if (this.isNamed(key)) this.stats.namedKeys.promotions++;
  }
}
