import type { Histogram } from '../recorder/histograms.ts';
import { compareCapacity, compareErrorRates, compareQuantiles, quantileWithInterval, type Change } from './quantile-ci.ts';
import { formatShare, formatUs } from './format.ts';
import { RECOVERY_REGRESSION_FACTOR } from './limits.ts';

/** What a comparison reads from one run or qualification. */
export interface ComparableRun {
  label: string;
  /** Measured latency histogram (warm-up excluded). */
  latency?: Histogram | undefined;
  requests: { failed: number; total: number };
  /** Runs with a timeline: the time to recover from each event (null: did not recover within the run), and the series' resolution. */
  recovery?: { spanMs: number; events: { label: string; type: string; recoveryMs: number | null }[] } | undefined;
  /** Qualifications only: the capacity bracket and the failover verdict. */
  capacity?: { pass?: number | undefined; fail?: number | undefined; failoverPass?: boolean | undefined } | undefined;
}

/** A stored run or qualification, read back for compare and history. */
export interface Snapshot extends ComparableRun {
  dir: string;
  startedAt: string;
  profileName: string;
  verdict: string;
  kind: 'run' | 'qualification';
  /** Cut short by a signal (or a full disk): partial figures, never a baseline or a trend point. */
  interrupted: boolean;
  /** p99 of the measured latency (for a qualification: of the step nearest the expected peak), µs. */
  p99Us?: number | undefined;
  capacityRps?: number | undefined;
}

export interface ComparisonRow {
  metric: string;
  baseline: string;
  candidate: string;
  change: Change;
  /** How the noise margin was computed. */
  margin: string;
}

export interface Comparison {
  baseline: string;
  candidate: string;
  rows: ComparisonRow[];
  regressed: boolean;
}

export const COMPARED_PERCENTILES = [50, 99, 99.9] as const;

/**
 * Baseline against candidate: latency percentiles (99% binomial intervals of the quantile's rank,
 * from the histograms), error rate (one-sided two-proportion z-test at 99%), capacity (the search
 * brackets) and failover. Any regression makes the comparison fail. Pure.
 */
export function compareRuns(baseline: ComparableRun, candidate: ComparableRun): Comparison {
  const rows: ComparisonRow[] = [];
  if (baseline.capacity && candidate.capacity) {
    const b = baseline.capacity;
    const c = candidate.capacity;
    rows.push({ metric: 'capacity', baseline: bracketText(b), candidate: bracketText(c), change: compareCapacity(b, c), margin: 'search bracket (highest pass, lowest fail)' });
    if (b.failoverPass !== undefined && c.failoverPass !== undefined) {
      const change: Change = b.failoverPass && !c.failoverPass ? 'regressed' : !b.failoverPass && c.failoverPass ? 'improved' : 'same';
      rows.push({ metric: 'failover (N+1)', baseline: b.failoverPass ? 'PASS' : 'FAIL', candidate: c.failoverPass ? 'PASS' : 'FAIL', change, margin: 'verdict' });
    }
  }
  if (baseline.latency && candidate.latency) {
    for (const p of COMPARED_PERCENTILES) {
      const b = quantileWithInterval(baseline.latency, p);
      const c = quantileWithInterval(candidate.latency, p);
      rows.push({ metric: `p${p}`, baseline: estimateText(b), candidate: estimateText(c), change: compareQuantiles(b, c), margin: '99% CI of the quantile rank' });
    }
  }
  rows.push(...recoveryRows(baseline.recovery, candidate.recovery));
  const errors = compareErrorRates(baseline.requests, candidate.requests);
  rows.push({
    metric: 'error rate',
    baseline: rateText(baseline.requests),
    candidate: rateText(candidate.requests),
    change: errors.change,
    margin: `two-proportion z = ${errors.z.toFixed(2)} (|z| > 2.33)`,
  });
  return { baseline: baseline.label, candidate: candidate.label, rows, regressed: rows.some((r) => r.change === 'regressed') };
}

/**
 * One row per timeline event both runs applied, matched in order and by kind: a candidate that
 * did not recover when the baseline did, or took RECOVERY_REGRESSION_FACTOR× as long and at least
 * two series points longer (the figures' resolution), regressed.
 */
function recoveryRows(b: ComparableRun['recovery'], c: ComparableRun['recovery']): ComparisonRow[] {
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

function estimateText(e: { valueUs: number; lowUs: number; highUs: number; samples: number }): string {
  return e.samples === 0 ? '–' : `${formatUs(e.valueUs)} [${formatUs(e.lowUs)}, ${formatUs(e.highUs)}]`;
}

function rateText(r: { failed: number; total: number }): string {
  return `${formatShare(r.total > 0 ? r.failed / r.total : 0)} (${r.failed}/${r.total})`;
}

function bracketText(b: { pass?: number | undefined; fail?: number | undefined }): string {
  const pass = b.pass !== undefined ? `${Math.round(b.pass)} rps` : 'none';
  return b.fail !== undefined ? `${pass} (fails at ${Math.round(b.fail)})` : `≥ ${pass}`;
}
