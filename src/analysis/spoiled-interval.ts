import type { Slo } from '../profile/schema.ts';
import type { IntervalResult } from '../recorder/interval-digest.ts';
import type { RunResult } from '../recorder/result.ts';
import { formatShare, formatUs } from './format.ts';
import type { SloCheck } from './slo.ts';
import type { SpoiledInterval } from './qualification.ts';

/** The longest stretch one stall may spoil: one interval, or two neighbours when the stall straddles their boundary. */
export const SPOILED_MAX_POINTS = 2;
/** …and at most this share of the step's measured intervals, or the "noise" is most of the step. */
export const SPOILED_MAX_SHARE = 1 / 3;
/** A spoiled stretch holds at least this share of the step's failed requests when errors broke the SLO. */
export const SPOILED_MIN_ERROR_SHARE = 0.5;

/**
 * Where a failing step's failure sits, when it sits in one interval (or two neighbours): that
 * stretch breaks every failed SLO check by itself, every other measured interval meets them all,
 * and, for the error rate, the stretch holds most of the step's failed requests. A latency check is
 * judged per interval on the interval's own p50, p99 or max (the least of them that is at or above
 * the check's percentile, so "clean" is never flattered); a check on one kind or client cannot be
 * judged from whole-traffic intervals, so a step failing one is never called spoiled. Undefined
 * when the step passed or its failure is spread out. Pure.
 */
export function spoiledInterval(result: RunResult, slo: Slo, checks: readonly SloCheck[]): SpoiledInterval | undefined {
  const failedLatency = slo.latency.filter((_, i) => checks[i]?.pass === false);
  const errorCheck = slo.errorRate !== undefined ? checks[slo.latency.length] : undefined;
  const errorsFailed = errorCheck?.pass === false;
  if (failedLatency.length === 0 && !errorsFailed) return undefined;
  if (failedLatency.some((rule) => rule.kind !== undefined || rule.client !== undefined)) return undefined;
  const points = result.intervals.series.filter((p) => !p.warmup);
  const breaks = (p: IntervalResult) => failedLatency.some((rule) => latencyAt(p, rule.percentile) > rule.max) || (errorsFailed && errorShare(p) > slo.errorRate!);
  const dirty = points.flatMap((p, i) => (breaks(p) ? [i] : []));
  if (dirty.length === 0 || dirty.length > SPOILED_MAX_POINTS || dirty.length > points.length * SPOILED_MAX_SHARE) return undefined;
  if (dirty.at(-1)! - dirty[0]! !== dirty.length - 1) return undefined;
  const stretch = dirty.map((i) => points[i]!);
  const errors = (ps: readonly IntervalResult[]) => ps.reduce((sum, p) => sum + p.failed + p.dropped, 0);
  const errorsHeld = errors(points) > 0 ? errors(stretch) / errors(points) : 0;
  if (errorsFailed && errorsHeld < SPOILED_MIN_ERROR_SHARE) return undefined;
  const spanMs = result.intervals.spanMs * stretch.length;
  const worst = stretch.reduce((a, b) => (b.latencyUs.p99 > a.latencyUs.p99 ? b : a));
  const what = [
    ...(failedLatency.length > 0 ? [`p99 ${formatUs(worst.latencyUs.p99)} there`] : []),
    ...(errorsFailed ? [`${formatShare(errorsHeld)} of the failed requests there`] : []),
  ].join(', ');
  const others = points.length - stretch.length;
  return { tMs: stretch[0]!.tMs, spanMs, detail: `${what}; the other ${others} interval${others === 1 ? '' : 's'} met the SLO` };
}

/** The interval's latency figure for a percentile: its p50, p99 or max, whichever is the least at or above it. */
function latencyAt(p: IntervalResult, percentile: number): number {
  if (percentile <= 50) return p.latencyUs.p50;
  if (percentile <= 99) return p.latencyUs.p99;
  return p.latencyUs.max;
}

function errorShare(p: IntervalResult): number {
  const total = p.ok + p.failed + p.dropped;
  return total > 0 ? (p.failed + p.dropped) / total : 0;
}
