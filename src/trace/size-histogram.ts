import { GrowableArray } from './growable.ts';

/*
 * Value sizes by log-linear buckets: exact below 256 bytes, then 128 buckets per power of two
 * (under 1% wide), each with its count and the sum of its sizes, so a mean read back from the
 * buckets is the exact mean and a distribution built from them keeps it.
 */

const EXACT = 256;
const SUB_BITS = 7;

function bucketOf(size: number): number {
  if (size < EXACT) return size;
  const exponent = Math.floor(Math.log2(size));
  const sub = Math.floor(size / 2 ** (exponent - SUB_BITS)) - (1 << SUB_BITS);
  return EXACT + (exponent - 8) * (1 << SUB_BITS) + sub;
}

function lowestOf(bucket: number): number {
  if (bucket < EXACT) return bucket;
  const exponent = 8 + Math.floor((bucket - EXACT) / (1 << SUB_BITS));
  const sub = (bucket - EXACT) % (1 << SUB_BITS);
  return ((1 << SUB_BITS) + sub) * 2 ** (exponent - SUB_BITS);
}

export class SizeHistogram {
  private readonly counts = new GrowableArray(512);
  private readonly sums = new GrowableArray(512);
  total = 0;
  sum = 0;
  max = 0;

  record(size: number): void {
    const b = bucketOf(size);
    this.counts.add(b, 1);
    this.sums.add(b, size);
    this.total++;
    this.sum += size;
    if (size > this.max) this.max = size;
  }

  get mean(): number {
    return this.total > 0 ? this.sum / this.total : 0;
  }

  /** The size at percentile p (0–100): the lowest size of the bucket that reaches it. */
  percentile(p: number): number {
    if (this.total === 0) return 0;
    const wanted = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = 0;
    for (let b = 0; b < this.counts.length; b++) {
      seen += this.counts.get(b);
      if (seen >= wanted) return Math.min(this.max, lowestOf(b));
    }
    return this.max;
  }

  /**
   * The sizes in `parts` groups of about equal count, each its mean size and its share: an
   * empirical distribution with the histogram's exact mean.
   */
  quantileMeans(parts: number): { value: number; weight: number }[] {
    const groups: { value: number; weight: number }[] = [];
    const per = this.total / parts;
    let count = 0;
    let sum = 0;
    for (let b = 0; b < this.counts.length; b++) {
      count += this.counts.get(b);
      sum += this.sums.get(b);
      if (count > 0 && (count >= per || b === this.counts.length - 1)) {
        groups.push({ value: sum / count, weight: count / this.total });
        count = 0;
        sum = 0;
      }
    }
    return groups;
  }
}
