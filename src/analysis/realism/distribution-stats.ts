import type { Distribution, SimpleDistribution } from '../../profile/distribution.ts';

/*
 * Closed-form statistics of the profile's size distributions, so flags can compare a test's batch
 * and value sizes with production's without drawing samples.
 */

/** P(X ≤ x). */
export function cdf(d: Distribution, x: number): number {
  if (d.type === 'mixture') {
    const total = d.of.reduce((sum, c) => sum + c.weight, 0);
    return d.of.reduce((sum, c) => sum + (c.weight / total) * simpleCdf(c, x), 0);
  }
  return simpleCdf(d, x);
}

/** The q-quantile (0 < q < 1), by bisection on the CDF: exact enough for a flag's comparison. */
export function quantile(d: Distribution, q: number): number {
  let lo = 0;
  let hi = Math.max(1, upperBound(d));
  if (cdf(d, lo) >= q) return lo;
  for (let i = 0; i < 100 && hi - lo > 1e-6 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (cdf(d, mid) >= q) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The largest value the distribution can produce (its 1 − 1e-7 quantile when unbounded). */
export function upperBound(d: Distribution): number {
  if (d.type === 'mixture') return Math.max(...d.of.map(simpleUpper));
  return simpleUpper(d);
}

const FAR_TAIL_Z = 5.2; // Φ⁻¹(1 − 1e-7)

function simpleUpper(d: SimpleDistribution): number {
  switch (d.type) {
    case 'fixed':
      return d.value;
    case 'uniform':
      return d.max;
    case 'exponential':
      return d.max ?? d.mean * Math.log(1e7);
    case 'lognormal':
      return d.max ?? d.median * Math.exp(FAR_TAIL_Z * d.sigma);
    case 'empirical':
      return Math.max(...d.values.map((v) => v.value));
  }
}

function simpleCdf(d: SimpleDistribution, x: number): number {
  switch (d.type) {
    case 'fixed':
      return x >= d.value ? 1 : 0;
    case 'uniform':
      return d.max === d.min ? (x >= d.min ? 1 : 0) : clamp01((x - d.min) / (d.max - d.min));
    case 'exponential':
      return bounded(d, x, (v) => 1 - Math.exp(-v / d.mean));
    case 'lognormal':
      return bounded(d, x, (v) => (v <= 0 ? 0 : normalCdf(Math.log(v / d.median) / d.sigma)));
    case 'empirical': {
      const total = d.values.reduce((sum, v) => sum + v.weight, 0);
      return d.values.reduce((sum, v) => sum + (v.value <= x ? v.weight : 0), 0) / total;
    }
  }
}

/** Clamped draws pile up at the bounds: below min nothing, at max everything. */
function bounded(d: { min?: number | undefined; max?: number | undefined }, x: number, f: (x: number) => number): number {
  if (d.min !== undefined && x < d.min) return 0;
  if (d.max !== undefined && x >= d.max) return 1;
  return f(x);
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(z)) / Math.SQRT2);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
