import type { Histogram } from '../recorder/histograms.ts';
import { type Noise, type RunNoise, repeatNoise, widerNoise } from './noise.ts';
import { quantileWithInterval, type QuantileEstimate } from './quantile-ci.ts';

/*
 * A qualification's latency as a function of the offered rate: its steps, one point per rate. Two
 * qualifications compare latency only at one offered rate — p99 at 600 rps against p99 at 450 rps
 * says nothing about either build — read at a rate both measured, or interpolated between the two
 * rates around it.
 */

/** The counted steps of one offered rate. */
export interface RatePoint {
  rps: number;
  /** The steps' latency histograms added. */
  latency: Histogram;
  requests: { failed: number; total: number };
  /** The widest of its steps' interval noise. */
  noise: RunNoise;
  /** Each step's own percentiles: more than one when the rate was repeated. */
  repeats: { p50: number; p99: number; p999: number }[];
}

export interface LatencyAtRate {
  estimate: QuantileEstimate;
  noise?: Noise | undefined;
  /** Measured at the rate itself, or interpolated between the two measured rates around it. */
  from: { rps: number } | { lowRps: number; highRps: number };
}

const REPEAT_FIELD = { 50: 'p50', 99: 'p99', 99.9: 'p999' } as const;

/** The rates measured, lowest and highest; undefined for an empty curve. */
export function rateRange(curve: readonly RatePoint[]): { low: number; high: number } | undefined {
  if (curve.length === 0) return undefined;
  return { low: Math.min(...curve.map((p) => p.rps)), high: Math.max(...curve.map((p) => p.rps)) };
}

/**
 * The percentile at `rps`: from the histogram of the steps at that rate, or between the two rates
 * around it (value and interval bounds linear in the rate on a log latency scale, the noise the
 * wider of the two). Undefined outside the measured rates: no extrapolation.
 */
export function latencyAtRate(curve: readonly RatePoint[], rps: number, percentile: 50 | 99 | 99.9): LatencyAtRate | undefined {
  const sorted = [...curve].sort((a, b) => a.rps - b.rps);
  const repeats = repeatNoise(sorted.map((p) => p.repeats.map((r) => r[REPEAT_FIELD[percentile]])));
  const noiseOf = (p: RatePoint) => (percentile === 50 ? p.noise.p50 : p.noise.p99);
  const exact = sorted.find((p) => p.rps === rps);
  if (exact) return { estimate: quantileWithInterval(exact.latency, percentile), noise: widerNoise(noiseOf(exact), repeats), from: { rps } };
  const high = sorted.find((p) => p.rps > rps);
  const low = sorted.filter((p) => p.rps < rps).at(-1);
  if (!low || !high) return undefined;
  const w = (rps - low.rps) / (high.rps - low.rps);
  const a = quantileWithInterval(low.latency, percentile);
  const b = quantileWithInterval(high.latency, percentile);
  const lerp = (x: number, y: number) => Math.exp((1 - w) * Math.log(Math.max(1, x)) + w * Math.log(Math.max(1, y)));
  return {
    estimate: { percentile, valueUs: lerp(a.valueUs, b.valueUs), lowUs: lerp(a.lowUs, b.lowUs), highUs: lerp(a.highUs, b.highUs), samples: Math.min(a.samples, b.samples) },
    noise: widerNoise(widerNoise(noiseOf(low), noiseOf(high)), repeats),
    from: { lowRps: low.rps, highRps: high.rps },
  };
}

/** The error rate at `rps`: of the steps at that rate, or linear between the two rates around it; undefined outside the measured rates. */
export function errorRateAtRate(curve: readonly RatePoint[], rps: number): number | undefined {
  const share = (p: RatePoint) => (p.requests.total > 0 ? p.requests.failed / p.requests.total : 0);
  const exact = curve.find((p) => p.rps === rps);
  if (exact) return share(exact);
  const high = [...curve].sort((a, b) => a.rps - b.rps).find((p) => p.rps > rps);
  const low = [...curve]
    .sort((a, b) => a.rps - b.rps)
    .filter((p) => p.rps < rps)
    .at(-1);
  if (!low || !high) return undefined;
  const w = (rps - low.rps) / (high.rps - low.rps);
  return (1 - w) * share(low) + w * share(high);
}
