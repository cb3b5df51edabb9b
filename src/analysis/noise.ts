import type { IntervalResult } from '../recorder/interval-digest.ts';
import { MIN_NOISE_BATCHES, MIN_TAIL_SAMPLES } from './limits.ts';

/*
 * Run-to-run noise: how far a figure moves between two runs of the same build, estimated before a
 * difference is called a change. A percentile's confidence interval from one run's histogram is
 * the sampling error inside that run only; a second run differs by more (a neighbour's load, a GC,
 * the cache's warm state). Two estimates, from what a stored run holds:
 * - batch means: the run's own measured intervals are batches of it; the spread of their values
 *   over √(batches) is the standard error of the whole run's figure, time-varying noise included;
 * - repeats: a qualification runs the rates that decide its capacity more than once; the spread of
 *   those repeats is run-to-run noise measured directly;
 * - nights: in a history, the same profile's earlier nights are runs of (mostly) the same build;
 *   their night-to-night spread is the noise itself, the between-run part included.
 * Latency noise is relative (natural log of the value); the error rate's is absolute.
 */

/** The standard error of one run's figure, with where it came from. */
export interface Noise {
  /** Standard error of the figure (ln units for latency, a share for the error rate). */
  se: number;
  /** Degrees of freedom of the estimate: batches − 1, or repeats − 1 summed over the repeated rates. */
  dof: number;
  /** "12 intervals", "2 rates run twice". */
  source: string;
}

/** A run's noise per figure: p50 and p99 from the intervals' percentiles (p99.9 from nights only), and the error rate. */
export interface RunNoise {
  p50?: Noise | undefined;
  p99?: Noise | undefined;
  p999?: Noise | undefined;
  errorRate?: Noise | undefined;
}

/** Student's t at 99% one-sided, by degrees of freedom 1–30; beyond, the normal's 2.326 approached via 40, 60, 120. */
const T_99 = [
  31.821, 6.965, 4.541, 3.747, 3.365, 3.143, 2.998, 2.896, 2.821, 2.764, 2.7181, 2.681, 2.65, 2.624, 2.602, 2.583, 2.567, 2.552, 2.539, 2.528, 2.518, 2.508, 2.5, 2.492, 2.485,
  2.479, 2.473, 2.467, 2.462, 2.457,
];

export function t99(dof: number): number {
  if (dof <= T_99.length) return T_99[Math.max(1, Math.floor(dof)) - 1]!;
  return dof <= 40 ? 2.423 : dof <= 60 ? 2.39 : dof <= 120 ? 2.358 : 2.326;
}

/**
 * How far apart two runs of the same build may be at 99% (one-sided) before the difference counts:
 * t · √2 · se — the difference of two runs, each with the baseline's noise.
 */
export function noiseMargin(noise: Noise): number {
  return t99(noise.dof) * Math.SQRT2 * noise.se;
}

/** The wider of two estimates (by their margins): a difference must clear every noise that was measured. */
export function widerNoise(a: Noise | undefined, b: Noise | undefined): Noise | undefined {
  if (!a || !b) return a ?? b;
  return noiseMargin(b) > noiseMargin(a) ? b : a;
}

/** Batch means over values, one a batch; undefined with fewer than MIN_NOISE_BATCHES. */
function batchNoise(values: readonly number[]): Noise | undefined {
  const k = values.length;
  if (k < MIN_NOISE_BATCHES) return undefined;
  const mean = values.reduce((s, v) => s + v, 0) / k;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (k - 1);
  return { se: Math.sqrt(variance / k), dof: k - 1, source: `${k} intervals` };
}

/**
 * Batch means over the measured intervals (after the warm-up, before sending stopped; a last interval
 * cut short is left out). An interval counts for a percentile when at least MIN_TAIL_SAMPLES of its
 * requests lie beyond it: a p99 from five requests is noise of its own.
 */
export function intervalNoise(series: readonly IntervalResult[], measuredEndMs: number): RunNoise {
  const measured = series.filter((i) => !i.warmup && i.tMs < measuredEndMs && i.coveredMs === undefined);
  const completed = (i: IntervalResult) => i.ok + i.failed;
  const lnOf = (share: number, pick: (i: IntervalResult) => number) => measured.filter((i) => completed(i) * share >= MIN_TAIL_SAMPLES).map((i) => Math.log(Math.max(1, pick(i))));
  const p50 = batchNoise(lnOf(0.5, (i) => i.latencyUs.p50));
  const p99 = batchNoise(lnOf(0.01, (i) => i.latencyUs.p99));
  const errorRate = batchNoise(measured.filter((i) => completed(i) + i.dropped > 0).map((i) => (i.failed + i.dropped) / (completed(i) + i.dropped)));
  return { ...(p50 && { p50 }), ...(p99 && { p99 }), ...(errorRate && { errorRate }) };
}

/**
 * Repeats of the same rate: the pooled spread of ln(value) within each rate run more than once,
 * as the standard error of one rate's figure (its repeats merged: divided by √repeats). Undefined
 * when no rate ran twice.
 */
export function repeatNoise(groups: readonly (readonly number[])[]): Noise | undefined {
  const repeated = groups.filter((g) => g.length >= 2);
  const dof = repeated.reduce((s, g) => s + g.length - 1, 0);
  if (dof === 0) return undefined;
  let squares = 0;
  for (const g of repeated) {
    const ln = g.map((v) => Math.log(Math.max(1, v)));
    const mean = ln.reduce((s, v) => s + v, 0) / ln.length;
    squares += ln.reduce((s, v) => s + (v - mean) ** 2, 0);
  }
  const perRun = Math.sqrt(squares / dof);
  const runs = Math.min(...repeated.map((g) => g.length));
  return { se: perRun / Math.sqrt(runs), dof, source: `${repeated.length} rate${repeated.length === 1 ? '' : 's'} run ${runs}×` };
}

/** Figure by figure, the wider of two noise estimates. */
export function widerRunNoise(a: RunNoise | undefined, b: RunNoise | undefined): RunNoise {
  return { p50: widerNoise(a?.p50, b?.p50), p99: widerNoise(a?.p99, b?.p99), p999: widerNoise(a?.p999, b?.p999), errorRate: widerNoise(a?.errorRate, b?.errorRate) };
}

/** The noise a percentile's difference must clear; p99.9 takes p99's where that is wider (the intervals hold no p99.9 of their own). */
export function percentileNoise(noise: RunNoise | undefined, percentile: 50 | 99 | 99.9): { noise: Noise | undefined; asP99: boolean } {
  if (percentile === 50) return { noise: noise?.p50, asP99: false };
  if (percentile === 99) return { noise: noise?.p99, asP99: false };
  const chosen = widerNoise(noise?.p999, noise?.p99);
  return { noise: chosen, asP99: chosen !== undefined && chosen !== noise?.p999 };
}

/** Earlier nights needed before their spread counts as an estimate. */
export const MIN_NIGHTS = 5;

/**
 * One night's noise from the nights before it: the spread of successive nights' differences (of
 * ln(value) for latency), taken as their median absolute difference so one change of build (a
 * step in the series) does not widen it: σ(one night) = median |d| / (0.6745 · √2).
 */
export function nightsNoise(values: readonly number[], log: boolean): Noise | undefined {
  if (values.length < MIN_NIGHTS) return undefined;
  const f = (v: number) => (log ? Math.log(Math.max(1, v)) : v);
  const d = values.slice(1).map((v, i) => Math.abs(f(v) - f(values[i]!)));
  const sorted = [...d].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { se: median / (0.6745 * Math.SQRT2), dof: d.length, source: `${values.length} nights` };
}
