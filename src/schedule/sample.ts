import type { Distribution, SimpleDistribution } from '../profile/distribution.ts';
import type { Rng } from './rng.ts';

/** Draws one whole-number value (keys, bytes, µs) per call. Built once per stream; calls do not allocate. */
export type Sampler = () => number;

/**
 * Builds a sampler for a validated distribution. Every result is a non-negative integer, because
 * every quantity we sample is counted in whole units (keys, bytes, µs). `min`/`max` clamp rather
 * than reject, so a narrow window cannot loop forever.
 */
export function createSampler(d: Distribution, rng: Rng): Sampler {
  if (d.type !== 'mixture') return simpleSampler(d, rng);
  const components = d.of.map((c) => simpleSampler(c, rng));
  const pick = cumulativePicker(
    d.of.map((c) => c.weight),
    rng,
  );
  return () => components[pick()]!();
}

function simpleSampler(d: SimpleDistribution, rng: Rng): Sampler {
  switch (d.type) {
    case 'fixed': {
      const value = Math.max(0, Math.round(d.value));
      return () => value;
    }
    case 'uniform': {
      const min = Math.ceil(d.min);
      const span = Math.floor(d.max) - min + 1;
      return () => min + Math.floor(rng.next() * span);
    }
    case 'exponential':
      return clamped(() => d.mean * rng.nextExp(), d.min, d.max);
    case 'lognormal':
      return clamped(() => d.median * Math.exp(d.sigma * standardNormal(rng)), d.min, d.max);
    case 'empirical': {
      const values = d.values.map((v) => Math.round(v.value));
      const pick = cumulativePicker(
        d.values.map((v) => v.weight),
        rng,
      );
      return () => values[pick()]!;
    }
  }
}

function clamped(draw: () => number, min = 0, max = Number.POSITIVE_INFINITY): Sampler {
  return () => Math.round(Math.min(max, Math.max(min, draw())));
}

/** Box–Muller; one normal per call keeps the stream position independent of call history. */
function standardNormal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** Returns a function picking index i with probability weights[i] / Σ weights (binary search over the CDF). */
export function cumulativePicker(weights: readonly number[], rng: Rng): () => number {
  if (weights.length === 1) return () => 0;
  const cdf = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((w, i) => (cdf[i] = total += w));
  const last = weights.length - 1;
  return () => {
    const u = rng.next() * total;
    let lo = 0;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** The distribution's mean before rounding and clamping; shown in the plan. */
export function meanOf(d: Distribution): number {
  switch (d.type) {
    case 'fixed':
      return d.value;
    case 'uniform':
      return (Math.ceil(d.min) + Math.floor(d.max)) / 2;
    case 'exponential':
      return d.mean;
    case 'lognormal':
      return d.median * Math.exp((d.sigma * d.sigma) / 2);
    case 'empirical':
      return weightedMean(d.values.map((v) => [v.value, v.weight]));
    case 'mixture':
      return weightedMean(d.of.map((c) => [meanOf(c), c.weight]));
  }
}

function weightedMean(pairs: [number, number][]): number {
  const total = pairs.reduce((sum, [, w]) => sum + w, 0);
  return pairs.reduce((sum, [v, w]) => sum + v * w, 0) / total;
}

/** Draws beyond this quantile of an unbounded distribution are taken as never happening when sizing a plan. */
const UPPER_QUANTILE_Z = 4.75; // the standard normal's 1 − 1e-6 quantile

/**
 * The largest value a plan must be sized for: the `max` of a bounded distribution, else the
 * one-in-a-million draw (exponential: mean·ln 1e6; lognormal: median·e^(4.75σ)). Shown by the plan check.
 */
export function upperOf(d: Distribution): number {
  switch (d.type) {
    case 'fixed':
      return d.value;
    case 'uniform':
      return Math.floor(d.max);
    case 'exponential':
      return d.max ?? d.mean * Math.log(1e6);
    case 'lognormal':
      return d.max ?? d.median * Math.exp(d.sigma * UPPER_QUANTILE_Z);
    case 'empirical':
      return d.values.reduce((most, v) => Math.max(most, v.value), 0);
    case 'mixture':
      return d.of.reduce((most, c) => Math.max(most, upperOf(c)), 0);
  }
}
