import type { Histogram } from '../recorder/histograms.ts';
import { compareQualificationLatency } from './compare-qualification.ts';
import { type CapacityFigures, capacityRows, type ComparisonRow, errorRateRow, latencyRows, recoveryRows, type TimelineRecovery } from './compare-rows.ts';
import type { RatePoint } from './latency-at-rate.ts';
import { type RunNoise, widerRunNoise } from './noise.ts';

export { bracketText, COMPARED_PERCENTILES, type ComparisonRow } from './compare-rows.ts';

/** What a comparison reads from one run or qualification. */
export interface ComparableRun {
  label: string;
  kind: 'run' | 'qualification';
  verdict: string;
  /** Why its figures are no evidence (an INVALID verdict's reasons, an interruption); empty when they are. */
  notComparable: string[];
  /** Runs: the rate asked of the measured window, requests per second. */
  offeredRps?: number | undefined;
  /** Runs: the measured latency histogram (warm-up excluded). */
  latency?: Histogram | undefined;
  /** Runs: run-to-run noise from the run's own intervals. */
  noise?: RunNoise | undefined;
  requests: { failed: number; total: number };
  /** Runs with a timeline: the time to recover from each event (null: did not recover within the run), and the series' resolution. */
  recovery?: TimelineRecovery | undefined;
  /** Qualifications only: the capacity bracket, how many repeat series decided it, and the failover verdict. */
  capacity?: CapacityFigures | undefined;
  /** Qualifications only: latency per offered rate (the counted steps), and the rate the qualification was for. */
  curve?: readonly RatePoint[] | undefined;
  expectedPeakRps?: number | undefined;
}

/** A stored run or qualification, read back for compare and history. */
export interface Snapshot extends ComparableRun {
  dir: string;
  startedAt: string;
  profileName: string;
  /** Cut short by a signal (or a full disk): partial figures, never a baseline or a trend point. */
  interrupted: boolean;
  /** p99 of the measured latency, µs; a qualification's at its expected peak (`p99AtRps`), read off its rate curve. */
  p99Us?: number | undefined;
  /** The error rate: a run's over its measured window, a qualification's at `p99AtRps` too. */
  errorRate?: number | undefined;
  p99AtRps?: number | undefined;
  /** Qualifications: the highest rate that held the SLO; undefined when none did. */
  capacityRps?: number | undefined;
}

/** One side, as the comparison names it. */
export interface ComparedSide {
  label: string;
  kind: 'run' | 'qualification';
  verdict: string;
  offeredRps?: number | undefined;
  /** Runs: requests measured; qualifications: rates measured. */
  requests: number;
  rates?: number | undefined;
}

export type ComparisonVerdict = 'regressed' | 'no regression' | 'not comparable';

export interface Comparison {
  baseline: ComparedSide;
  candidate: ComparedSide;
  verdict: ComparisonVerdict;
  /** Each side whose figures are no evidence, with why; the rows are then empty. */
  notComparable: { side: 'baseline' | 'candidate'; label: string; verdict: string; reasons: string[] }[];
  rows: ComparisonRow[];
  /** What was compared where the rows cannot say it: the rate latency was read at, a figure left out and why. */
  notes: string[];
  regressed: boolean;
}

/**
 * Baseline against candidate. A side whose figures are no evidence (INVALID, interrupted) makes
 * the pair not comparable: nothing is judged. Otherwise runs compare latency percentiles and the
 * error rate; qualifications compare capacity (the search brackets), failover, and latency at one
 * offered rate both measured. A difference counts only beyond both the sampling interval of one
 * run and the baseline's run-to-run noise (its own, and `across` earlier runs when a history has
 * them). Any regression makes the comparison fail. Pure.
 */
export function compareRuns(baseline: ComparableRun, candidate: ComparableRun, across?: RunNoise): Comparison {
  const sides = { baseline: sideOf(baseline), candidate: sideOf(candidate) };
  const notComparable = (['baseline', 'candidate'] as const).flatMap((side) => {
    const run = side === 'baseline' ? baseline : candidate;
    return run.notComparable.length > 0 ? [{ side, label: run.label, verdict: run.verdict, reasons: run.notComparable }] : [];
  });
  if (notComparable.length > 0) return { ...sides, verdict: 'not comparable', notComparable, rows: [], notes: [], regressed: false };
  const rows: ComparisonRow[] = [];
  const notes: string[] = [];
  if (baseline.capacity && candidate.capacity) {
    rows.push(...capacityRows(baseline.capacity, candidate.capacity));
    const latency = compareQualificationLatency(baseline.curve ?? [], candidate.curve ?? [], baseline.expectedPeakRps, across);
    rows.push(...latency.rows);
    notes.push(latency.note);
  } else {
    if (baseline.kind !== candidate.kind) notes.push(`a ${baseline.kind} against a ${candidate.kind}: only the figures both have are compared`);
    if (baseline.offeredRps !== undefined && candidate.offeredRps !== undefined && baseline.offeredRps !== candidate.offeredRps) {
      notes.push(
        `the runs were offered different rates (${Math.round(baseline.offeredRps)} → ${Math.round(candidate.offeredRps)} rps): latency is compared as measured, each at its own rate`,
      );
    }
    const noise = widerRunNoise(baseline.noise, across);
    if (baseline.latency && candidate.latency) rows.push(...latencyRows(baseline.latency, candidate.latency, noise));
    rows.push(...recoveryRows(baseline.recovery, candidate.recovery));
    rows.push(errorRateRow(baseline.requests, candidate.requests, noise.errorRate));
  }
  const regressed = rows.some((r) => r.change === 'regressed');
  return { ...sides, verdict: regressed ? 'regressed' : 'no regression', notComparable: [], rows, notes, regressed };
}

function sideOf(r: ComparableRun): ComparedSide {
  return { label: r.label, kind: r.kind, verdict: r.verdict, offeredRps: r.offeredRps, requests: r.requests.total, rates: r.curve?.length };
}
