import type { Histogram } from '../recorder/histograms.ts';

/** A latency percentile with its confidence interval, µs. */
export interface QuantileEstimate {
  percentile: number;
  valueUs: number;
  lowUs: number;
  highUs: number;
  samples: number;
}

/** z for a two-sided 99% interval. */
export const Z_99 = 2.5758;
/** z for a one-sided 99% test. */
export const Z_99_ONE_SIDED = 2.3263;

/**
 * The percentile and a distribution-free confidence interval for it: the number of samples below
 * the true p-quantile is Binomial(n, p), so the quantile lies between the order statistics at ranks
 * np ∓ z·√(np(1−p)) with the chosen confidence. Read from the HDR histogram, so it is exact up to
 * the histogram's 3 significant digits. Small samples give wide intervals: that is the point.
 */
export function quantileWithInterval(h: Histogram, percentile: number, z = Z_99): QuantileEstimate {
  const n = h.totalCount;
  if (n === 0) return { percentile, valueUs: 0, lowUs: 0, highUs: 0, samples: 0 };
  const p = percentile / 100;
  const rank = n * p;
  const spread = z * Math.sqrt(n * p * (1 - p));
  const atRank = (r: number) => h.getValueAtPercentile(Math.min(100, Math.max(0, (100 * r) / n)));
  return {
    percentile,
    valueUs: h.getValueAtPercentile(percentile),
    lowUs: atRank(Math.max(1, Math.floor(rank - spread))),
    highUs: rank + spread >= n ? h.maxValue : atRank(Math.ceil(rank + spread)),
    samples: n,
  };
}

export type Change = 'regressed' | 'improved' | 'same';

/** Latency regressed when the intervals do not overlap and the candidate's is above; improved when below. */
export function compareQuantiles(baseline: QuantileEstimate, candidate: QuantileEstimate): Change {
  if (baseline.samples === 0 || candidate.samples === 0) return 'same';
  if (candidate.lowUs > baseline.highUs) return 'regressed';
  if (candidate.highUs < baseline.lowUs) return 'improved';
  return 'same';
}

/** One-sided two-proportion z-test on failure counts (pooled variance). */
export function compareErrorRates(baseline: { failed: number; total: number }, candidate: { failed: number; total: number }, z = Z_99_ONE_SIDED): { change: Change; z: number } {
  if (baseline.total === 0 || candidate.total === 0) return { change: 'same', z: 0 };
  const p1 = baseline.failed / baseline.total;
  const p2 = candidate.failed / candidate.total;
  const pooled = (baseline.failed + candidate.failed) / (baseline.total + candidate.total);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / baseline.total + 1 / candidate.total));
  if (se === 0) return { change: 'same', z: 0 };
  const score = (p2 - p1) / se;
  return { change: score > z ? 'regressed' : score < -z ? 'improved' : 'same', z: score };
}

/**
 * Capacity from a step search is known only within its bracket (highest passing rate, lowest
 * failing rate). It regressed when the candidate failed at a rate the baseline held; improved when
 * the candidate held a rate the baseline failed.
 */
export function compareCapacity(baseline: { pass?: number | undefined; fail?: number | undefined }, candidate: { pass?: number | undefined; fail?: number | undefined }): Change {
  if (candidate.fail !== undefined && baseline.pass !== undefined && candidate.fail <= baseline.pass) return 'regressed';
  if (baseline.fail !== undefined && candidate.pass !== undefined && baseline.fail <= candidate.pass) return 'improved';
  return 'same';
}
