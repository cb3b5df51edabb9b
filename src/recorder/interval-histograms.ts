import { decodeFromCompressedBase64, encodeIntoCompressedBase64, newHistogram, type Histogram } from './histograms.ts';

/*
 * One interval's latency histograms, as latency.hlog carries them (HdrHistogram's `Tag=`):
 * - untagged: the measured requests that completed in the interval — summed over the log they are
 *   result.json's `latencyUs`, count for count;
 * - `kind:<name>`: the same, for one request kind (result.json's `byKind`);
 * - `warmup`: requests sent during the warm-up, kept apart so no reader mixes them in by accident.
 * A request is measured by when it was due (its intended time), as the totals are.
 */

export const WARMUP_TAG = 'warmup';
export const KIND_TAG_PREFIX = 'kind:';

export function kindTag(kind: string): string {
  return `${KIND_TAG_PREFIX}${kind}`;
}

/** The histograms of one interval, compressed base64: what a worker posts, what a segment's log holds. */
export interface EncodedIntervalHistograms {
  measured: string;
  warmup: string;
  byKind: string[];
}

/**
 * The range every interval histogram is sized for from the start: the measured ones are first
 * recorded into when the warm-up ends, and growing them then (a resize per power of two, on the
 * sending thread) stalled the pacer in the run's first measured seconds.
 */
const PRESIZED_TO_US = 60_000_000;

function presized(): Histogram {
  const h = newHistogram();
  h.recordValue(PRESIZED_TO_US);
  h.reset();
  return h;
}

export class IntervalHistograms {
  readonly measured: Histogram = presized();
  readonly warmup: Histogram = presized();
  readonly byKind: Histogram[];
  /** Every completion of the interval, warm-up included: added up when asked for, once per interval. */
  private readonly everything: Histogram = presized();

  constructor(kinds: number) {
    this.byKind = Array.from({ length: kinds }, () => presized());
  }

  /** Hot path: one completion, recorded once (a measured one by kind); `sealRecorded` adds up the rest. */
  record(latencyUs: number, kind: number, measured: boolean): void {
    if (measured) this.byKind[kind]!.recordValue(latencyUs);
    else this.warmup.recordValue(latencyUs);
  }

  /** The interval recorded here is closing: `measured` becomes the sum of its kinds. */
  sealRecorded(): void {
    this.measured.reset();
    for (const h of this.byKind) this.measured.add(h);
  }

  /** Every completion of the interval, warm-up included (the interval's own percentiles); after `sealRecorded` when recorded here. */
  all(): Histogram {
    this.everything.reset();
    this.everything.add(this.measured);
    this.everything.add(this.warmup);
    return this.everything;
  }

  reset(): void {
    this.everything.reset();
    this.measured.reset();
    this.warmup.reset();
    for (const h of this.byKind) h.reset();
  }

  encode(): EncodedIntervalHistograms {
    return { measured: encodeIntoCompressedBase64(this.measured), warmup: encodeIntoCompressedBase64(this.warmup), byKind: this.byKind.map((h) => encodeIntoCompressedBase64(h)) };
  }

  /** Adds another recorder's same interval, exactly (HDR histograms add bucket by bucket). */
  add(encoded: EncodedIntervalHistograms): void {
    const measured = decodeFromCompressedBase64(encoded.measured);
    const warmup = decodeFromCompressedBase64(encoded.warmup);
    this.measured.add(measured);
    this.warmup.add(warmup);
    encoded.byKind.forEach((h, i) => this.byKind[i]?.add(decodeFromCompressedBase64(h)));
  }
}

const EMPTY = encodeIntoCompressedBase64(newHistogram());

/** An interval's histograms as a latency.hlog holds them, by tag ('' the untagged one); a tag the interval lacks is empty. */
export function fromLogTags(byTag: ReadonlyMap<string, string>, kinds: readonly string[]): EncodedIntervalHistograms {
  return { measured: byTag.get('') ?? EMPTY, warmup: byTag.get(WARMUP_TAG) ?? EMPTY, byKind: kinds.map((k) => byTag.get(kindTag(k)) ?? EMPTY) };
}
