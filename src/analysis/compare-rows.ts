import type { Histogram } from '../recorder/histograms.ts';
import { formatShare, formatUs } from './format.ts';
import { MIN_NOISE_BATCHES, RECOVERY_REGRESSION_FACTOR } from './limits.ts';
import { MIN_NIGHTS, type Noise, noiseMargin, percentileNoise, type RunNoise } from './noise.ts';
import { compareCapacity, compareErrorRates, compareQuantiles, quantileWithInterval, type Change, type QuantileEstimate } from './quantile-ci.ts';

/*
 * The rows of a comparison, one figure each: its value on both sides, the change, and the margin a
 * difference had to clear to count.
 */

export interface ComparisonRow {
  metric: string;
  baseline: string;
  candidate: string;
  change: Change;
  /** How the noise margin was computed. */
  margin: string;
}

export const COMPARED_PERCENTILES = [50, 99, 99.9] as const;

export interface CapacityFigures {
  pass?: number | undefined;
  fail?: number | undefined;
  /** Repeat series that decided the bracket. */
  series?: number | undefined;
  failoverPass?: boolean | undefined;
}

export interface TimelineRecovery {
  spanMs: number;
  events: { label: string; type: string; recoveryMs: number | null }[];
}

/**
 * Capacity from the brackets (a side with no passing rate has capacity "none", and none → a capacity
 * is a change, not "same"), then the failover verdict.
 */
export function capacityRows(b: CapacityFigures, c: CapacityFigures): ComparisonRow[] {
  const series = Math.min(b.series ?? 1, c.series ?? 1);
  const margin = `search brackets (highest pass, lowest fail)${series > 1 ? `, each rate judged by its ${series} repeats` : ''}`;
  const rows: ComparisonRow[] = [{ metric: 'capacity', baseline: bracketText(b), candidate: bracketText(c), change: capacityChange(b, c), margin }];
  if (b.failoverPass !== undefined && c.failoverPass !== undefined) {
    const change: Change = b.failoverPass && !c.failoverPass ? 'regressed' : !b.failoverPass && c.failoverPass ? 'improved' : 'same';
    rows.push({ metric: 'failover (N+1)', baseline: b.failoverPass ? 'PASS' : 'FAIL', candidate: c.failoverPass ? 'PASS' : 'FAIL', change, margin: 'verdict' });
  }
  return rows;
}

function capacityChange(b: { pass?: number | undefined; fail?: number | undefined }, c: { pass?: number | undefined; fail?: number | undefined }): Change {
  if (b.pass === undefined && c.pass !== undefined) return 'improved';
  if (b.pass !== undefined && c.pass === undefined) return 'regressed';
  return compareCapacity(b, c);
}

/** p50, p99 and p99.9 of two histograms (or estimates read off two curves), each beyond its sampling interval and the run-to-run noise. */
export function latencyRows(baseline: Histogram, candidate: Histogram, noise: RunNoise | undefined): ComparisonRow[] {
  return COMPARED_PERCENTILES.map((p) => {
    const { noise: noiseOf, asP99 } = percentileNoise(noise, p);
    return latencyRow(`p${p}`, quantileWithInterval(baseline, p), quantileWithInterval(candidate, p), noiseOf, asP99);
  });
}

export function latencyRow(metric: string, b: QuantileEstimate, c: QuantileEstimate, noise: Noise | undefined, borrowed = false): ComparisonRow {
  const sampled = compareQuantiles(b, c);
  const apart = noise === undefined || Math.abs(Math.log(Math.max(1, c.valueUs) / Math.max(1, b.valueUs))) > noiseMargin(noise);
  return { metric, baseline: estimateText(b), candidate: estimateText(c), change: apart ? sampled : 'same', margin: latencyMarginText(noise, borrowed) };
}

function latencyMarginText(noise: Noise | undefined, borrowed: boolean): string {
  if (!noise) return `99% CI of the rank; run-to-run noise not estimated (fewer than ${MIN_NOISE_BATCHES} measured intervals with enough samples, or ${MIN_NIGHTS} nights)`;
  const pct = Math.round((Math.exp(noiseMargin(noise)) - 1) * 100);
  return `99% CI of the rank; run-to-run ±${pct}% (${noise.source}${borrowed ? ', as p99' : ''})`;
}

export function errorRateRow(b: { failed: number; total: number }, c: { failed: number; total: number }, noise: Noise | undefined): ComparisonRow {
  const errors = compareErrorRates(b, c);
  const difference = Math.abs(c.failed / Math.max(1, c.total) - b.failed / Math.max(1, b.total));
  const apart = noise === undefined || difference > noiseMargin(noise);
  const runToRun = noise ? `; run-to-run ±${formatShare(noiseMargin(noise))} (${noise.source})` : '';
  return {
    metric: 'error rate',
    baseline: rateText(b),
    candidate: rateText(c),
    change: apart ? errors.change : 'same',
    margin: `two-proportion z = ${errors.z.toFixed(2)} (|z| > 2.33)${runToRun}`,
  };
}

/**
 * One row per timeline event both runs applied, matched in order and by kind: a candidate that
 * did not recover when the baseline did, or took RECOVERY_REGRESSION_FACTOR× as long and at least
 * two series points longer (the figures' resolution), regressed.
 */
export function recoveryRows(b: TimelineRecovery | undefined, c: TimelineRecovery | undefined): ComparisonRow[] {
  if (!b || !c) return [];
  const slack = 2 * Math.max(b.spanMs, c.spanMs);
  return b.events.flatMap((be, i): ComparisonRow[] => {
    const ce = c.events[i];
    if (!ce || ce.type !== be.type) return [];
    return [
      {
        metric: `recovery: ${be.label}`,
        baseline: recoveryText(be.recoveryMs),
        candidate: recoveryText(ce.recoveryMs),
        change: recoveryChange(be.recoveryMs, ce.recoveryMs, slack),
        margin: `${RECOVERY_REGRESSION_FACTOR}× and ${formatUs(slack * 1000)}`,
      },
    ];
  });
}

function recoveryChange(b: number | null, c: number | null, slackMs: number): Change {
  if (b === null || c === null) return b === c ? 'same' : c === null ? 'regressed' : 'improved';
  if (c > b * RECOVERY_REGRESSION_FACTOR && c - b >= slackMs) return 'regressed';
  if (b > c * RECOVERY_REGRESSION_FACTOR && b - c >= slackMs) return 'improved';
  return 'same';
}

function recoveryText(ms: number | null): string {
  if (ms === null) return 'did not recover';
  return ms === 0 ? 'at once' : formatUs(ms * 1000);
}

function estimateText(e: QuantileEstimate): string {
  return e.samples === 0 ? '–' : `${formatUs(e.valueUs)} [${formatUs(e.lowUs)}, ${formatUs(e.highUs)}]`;
}

function rateText(r: { failed: number; total: number }): string {
  return `${formatShare(r.total > 0 ? r.failed / r.total : 0)} (${r.failed}/${r.total})`;
}

/** "17800 rps (fails at 18600)", "≥ 9000 rps", "none (fails at 600)": a missing capacity is none, never 0. */
export function bracketText(b: { pass?: number | undefined; fail?: number | undefined }): string {
  const pass = b.pass !== undefined ? `${Math.round(b.pass)} rps` : 'none';
  if (b.fail !== undefined) return `${pass} (fails at ${Math.round(b.fail)})`;
  return b.pass !== undefined ? `≥ ${pass}` : pass;
}
