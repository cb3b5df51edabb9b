import type { HotKey, Popularity } from '../profile/schema.ts';
import type { Rng } from './rng.ts';
import type { Keyspace } from './types.ts';
import { weightedDraw } from './weighted.ts';
import { ZipfSampler } from './zipf.ts';

export interface KeysSpec {
  count: number;
  popularity: Popularity;
  prefix: string;
  hot: HotKey[];
  /** Share of requests whose keys are one-hit wonders (0 or absent: none). */
  oneHitWonders?: number | undefined;
  /** Keys from a file (`keys.file`): their names in rank order and, when weighted, the running weight share. */
  sample?: { keys: readonly string[]; cumulative?: readonly number[] | undefined } | undefined;
}

/** Share of key draws that go to one hot key at run time t (µs after the warm-up started). */
export function hotKeyShare(hot: HotKey, measuredUs: number): number {
  const sinceStart = measuredUs - hot.start;
  if (sinceStart < 0) return 0;
  if (sinceStart < hot.rise) return (hot.peak * sinceStart) / hot.rise;
  const sincePeakEnd = sinceStart - hot.rise - hot.hold;
  if (sincePeakEnd <= 0 || hot.halfLife === undefined) return hot.peak;
  return hot.peak * 2 ** (-sincePeakEnd / hot.halfLife);
}

/**
 * One-hit-wonder ids: a range after the popular and hot keys, handed out in turn and recycled after
 * this many, so arrays over key ids (the model's LRU, the drivers' per-key state) stay bounded.
 */
export const ONCE_KEYS = 1 << 20;

/** Key ids a keyspace may produce: the popularity law's, the hot keys, the one-hit-wonder range. */
export function keyIds(keyspace: Keyspace): number {
  return keyspace.count + keyspace.hotKeys.length + (keyspace.onceKeys ?? 0);
}

export function createKeyspace(spec: KeysSpec): Keyspace {
  const hotKeys = spec.hot.map((h) => h.key);
  const onceKeys = (spec.oneHitWonders ?? 0) > 0 ? ONCE_KEYS : 0;
  const firstOnce = spec.count + hotKeys.length;
  const named = spec.sample ? sampleKeyName(spec.sample.keys, hotKeys) : (id: number) => (id < spec.count ? spec.prefix + id : hotKeys[id - spec.count]!);
  return {
    count: spec.count,
    hotKeys,
    ...(onceKeys > 0 ? { onceKeys } : {}),
    keyName: onceKeys > 0 ? (id) => (id >= firstOnce ? `${spec.prefix}once:${id - firstOnce}` : named(id)) : named,
  };
}

function sampleKeyName(keys: readonly string[], hotKeys: readonly string[]): (id: number) => string {
  return (id) => (id < keys.length ? keys[id]! : hotKeys[id - keys.length]!);
}

/**
 * Draws key ids for one client: ids 0..count-1 by the popularity law (id = rank − 1), or hot key j
 * (id count+j) with its current share. `prepare(t)` once per request computes the hot-key shares,
 * then `draw()` once per key of the batch.
 */
export class KeyDrawer {
  private readonly popular: () => number;
  private readonly hot: HotKey[];
  private readonly hotIds: number[];
  private readonly shares: Float64Array;
  /** One-hit wonders: the share of requests, their first id, the next one's offset, and whether this request is one. */
  private readonly onceShare: number;
  private readonly firstOnce: number;
  private nextOnce = 0;
  private once = false;

  /**
   * `onceRng` decides which requests are one-hit wonders, a stream of its own so a profile without
   * them draws exactly what it drew before (needed only with keys.oneHitWonders).
   */
  constructor(
    spec: KeysSpec,
    clientName: string,
    private readonly rng: Rng,
    private readonly onceRng?: Rng,
  ) {
    // A key file's weights are its popularity; without weights the law ranks its keys in file order.
    const weights = spec.sample?.cumulative;
    this.popular = weights ? weightedDraw(weights, rng) : popularityDraw(spec.count, spec.popularity, rng);
    const applies = (h: HotKey) => h.clients === undefined || h.clients.includes(clientName);
    this.hot = spec.hot.filter(applies);
    this.hotIds = spec.hot.flatMap((h, j) => (applies(h) ? [spec.count + j] : []));
    this.shares = new Float64Array(this.hot.length);
    this.onceShare = spec.oneHitWonders ?? 0;
    this.firstOnce = spec.count + spec.hot.length;
    if (this.onceShare > 0) {
      if (onceRng === undefined) throw new Error('keys.oneHitWonders needs the drawer’s one-hit-wonder stream');
      // Drawers of the same client (k6 VUs, segments) start at different points of the range.
      this.nextOnce = onceRng.nextUint32() % ONCE_KEYS;
    }
  }

  prepare(measuredUs: number): void {
    for (let j = 0; j < this.hot.length; j++) this.shares[j] = hotKeyShare(this.hot[j]!, measuredUs);
    if (this.onceShare > 0) this.once = this.onceRng!.next() < this.onceShare;
  }

  draw(): number {
    if (this.once) {
      // A key nobody asked for before and nobody will again (until the range wraps).
      const id = this.firstOnce + this.nextOnce;
      this.nextOnce = (this.nextOnce + 1) % ONCE_KEYS;
      return id;
    }
    if (this.hot.length > 0) {
      let u = this.rng.next();
      for (let j = 0; j < this.shares.length; j++) {
        u -= this.shares[j]!;
        if (u < 0) return this.hotIds[j]!;
      }
    }
    return this.popular();
  }
}

function popularityDraw(count: number, popularity: Popularity, rng: Rng): () => number {
  switch (popularity.type) {
    case 'uniform':
      return () => Math.floor(rng.next() * count);
    case 'zipf': {
      const zipf = new ZipfSampler(count, popularity.s, rng);
      return () => zipf.next() - 1;
    }
    case 'hotspot': {
      const hotCount = Math.max(1, Math.min(count, Math.ceil(popularity.keyFraction * count)));
      const coldCount = count - hotCount;
      const trafficShare = coldCount === 0 ? 1 : popularity.trafficShare;
      return () => (rng.next() < trafficShare ? Math.floor(rng.next() * hotCount) : hotCount + Math.floor(rng.next() * coldCount));
    }
  }
}
