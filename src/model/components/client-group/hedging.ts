/** Sub-buckets per power of two of the reply-time histogram: bucket edges ~9% apart. */
const PER_OCTAVE = 8;
const BUCKETS = 40 * PER_OCTAVE;
/** Replies between two estimates; each estimate then halves the counts (older replies fade). */
const REFRESH_EVERY = 1024;

/**
 * When an attempt still waiting gets a hedge: a fixed delay, or a percentile of the group's recent
 * reply times from a small log-bucketed histogram (no allocation per reply; re-estimated every
 * 1,024 replies, after which the counts are halved so the estimate follows a changing system).
 */
export class HedgeDelay {
  private readonly counts: Float64Array;
  private seen = 0;
  private total = 0;
  private delayUs: number;

  constructor(
    afterUs: number | undefined,
    private readonly percentile: number | undefined,
  ) {
    this.counts = new Float64Array(percentile === undefined ? 0 : BUCKETS);
    this.delayUs = afterUs ?? Number.POSITIVE_INFINITY;
  }

  /** The delay now; Infinity while a percentile has too few replies to go on. */
  get us(): number {
    return this.delayUs;
  }

  /** A successful attempt's reply time. */
  observe(replyUs: number): void {
    if (this.percentile === undefined) return;
    this.counts[bucketOf(replyUs)]!++;
    this.total++;
    if (++this.seen % REFRESH_EVERY === 0) this.estimate(this.percentile);
  }

  private estimate(percentile: number): void {
    let rank = (this.total * percentile) / 100;
    let b = 0;
    while (b < BUCKETS - 1 && rank > this.counts[b]!) rank -= this.counts[b++]!;
    this.delayUs = Math.ceil(upperEdge(b));
    this.total = 0;
    for (let i = 0; i < BUCKETS; i++) {
      this.counts[i]! /= 2;
      this.total += this.counts[i]!;
    }
  }
}

function bucketOf(us: number): number {
  if (us < 1) return 0;
  return Math.min(BUCKETS - 1, Math.floor(Math.log2(us) * PER_OCTAVE));
}

function upperEdge(bucket: number): number {
  return 2 ** ((bucket + 1) / PER_OCTAVE);
}
