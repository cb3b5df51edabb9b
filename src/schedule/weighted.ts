import type { Rng } from './rng.ts';

/**
 * A draw from a key file's weights: rank i (0-based) with probability cumulative[i] − cumulative[i−1].
 * Binary search over the running shares: O(log n) per key, no table beyond the one the profile holds.
 */
export function weightedDraw(cumulative: readonly number[], rng: Rng): () => number {
  const last = cumulative.length - 1;
  return () => {
    const u = rng.next();
    let lo = 0;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}
