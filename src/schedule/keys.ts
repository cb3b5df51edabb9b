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

export function createKeyspace(spec: KeysSpec): Keyspace {
  const hotKeys = spec.hot.map((h) => h.key);
  return {
    count: spec.count,
    hotKeys,
    keyName: spec.sample ? sampleKeyName(spec.sample.keys, hotKeys) : (id) => (id < spec.count ? spec.prefix + id : hotKeys[id - spec.count]!),
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

  constructor(
    spec: KeysSpec,
    clientName: string,
    private readonly rng: Rng,
  ) {
    // A key file's weights are its popularity; without weights the law ranks its keys in file order.
    const weights = spec.sample?.cumulative;
    this.popular = weights ? weightedDraw(weights, rng) : popularityDraw(spec.count, spec.popularity, rng);
    const applies = (h: HotKey) => h.clients === undefined || h.clients.includes(clientName);
    this.hot = spec.hot.filter(applies);
    this.hotIds = spec.hot.flatMap((h, j) => (applies(h) ? [spec.count + j] : []));
    this.shares = new Float64Array(this.hot.length);
  }

  prepare(measuredUs: number): void {
    for (let j = 0; j < this.hot.length; j++) this.shares[j] = hotKeyShare(this.hot[j]!, measuredUs);
  }

  draw(): number {
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
