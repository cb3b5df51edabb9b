import { stringify } from 'csv-stringify/sync';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import type { Qualification } from '../analysis/qualification.ts';
import { type GaugeCatalog, parseGaugeKey } from '../recorder/gauges.ts';
import type { LatencySummary } from '../recorder/histograms.ts';
import type { IntervalResult } from '../recorder/interval-digest.ts';
import type { RunResult } from '../recorder/result.ts';

/*
 * A run or a qualification as CSV, for spreadsheets and the tools Locust, Gatling and k6 users
 * already feed: intervals.csv (one row per interval), summary.csv (one row: the run, or the
 * qualification), steps.csv (a qualification's steps). A header row; every value a plain number
 * (or true/false, or text) in the unit its column's name ends with (_ms, _us, _rps, _ratio, …),
 * exactly as result.json and intervals.jsonl hold it; RFC 4180 quoting and CRLF line ends.
 */

export const CSV_FILES = { intervals: 'intervals.csv', summary: 'summary.csv', steps: 'steps.csv' } as const;

export type CsvValue = string | number | boolean | undefined;

export interface CsvTable {
  header: string[];
  rows: CsvValue[][];
}

/** RFC 4180: CRLF between records, a field holding a comma, a quote or a line break quoted, quotes doubled. */
export function csvText(rows: readonly CsvValue[][]): string {
  const cells = rows.map((row) => row.map((v) => (v === undefined ? '' : typeof v === 'boolean' ? String(v) : v)));
  return stringify(cells, { record_delimiter: 'windows', quote_record_delimiter: true });
}

/** camelCase → snake_case, for column names built from result.json's keys. */
function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function latencyColumns(prefix: string, s: LatencySummary): [string, number][] {
  return Object.entries(s).map(([key, value]) => [key === 'count' ? `${prefix}_count` : `${prefix}_${key}_us`, value]);
}

/** summary.csv of a run: who, when, how long, the verdict, every request count, latency and service time, failures by reason. */
export function runSummaryTable(result: RunResult, analysis: RunAnalysis | undefined): CsvTable {
  const columns: [string, CsvValue][] = [
    ['profile', result.profile.name],
    ['seed', result.seed],
    ['target', result.target],
    ['started_at', result.startedAt],
    ['finished_at', result.wall.finishedAt],
    ['elapsed_ms', result.wall.elapsedMs],
    ['warmup_ms', result.warmupMs],
    ['duration_ms', result.durationMs],
    ['interrupted', result.interrupted],
    ['verdict', analysis?.verdict],
    ['asked_rps', result.rate.askedRps],
    ['achieved_rps', result.rate.achievedRps],
    ...Object.entries(result.requests).map(([key, value]): [string, number] => [`requests_${snake(key)}`, value]),
    ...latencyColumns('latency', result.latencyUs),
    ...latencyColumns('service_time', result.serviceTimeUs),
    ...Object.entries(result.errors).map(([reason, n]): [string, number] => [`errors_${reason}`, n]),
  ];
  return { header: columns.map(([name]) => name), rows: [columns.map(([, value]) => value)] };
}

/** summary.csv of a qualification: its verdict, capacity and spread, peak, headroom, failover, knee and limit. */
export function qualificationSummaryTable(q: Qualification): CsvTable {
  const columns: [string, CsvValue][] = [
    ['profile', q.profile.name],
    ['seed', q.seed],
    ['target', q.target],
    ['started_at', q.startedAt],
    ['finished_at', q.wall.finishedAt],
    ['elapsed_ms', q.wall.elapsedMs],
    ['interrupted', q.interrupted],
    ['verdict', q.verdict],
    ['capacity_rps', q.capacityRps],
    ['capacity_spread_high_rps', q.spread?.highRps],
    ['capacity_spread_series', q.spread?.series],
    ['expected_peak_rps', q.expectedPeakRps],
    ['peak_source', q.peakSource],
    ['headroom_ratio', q.headroom],
    ['failover_data_centres', q.failover?.dataCentres],
    ['failover_demand_rps', q.failover?.demandRps],
    ['failover_headroom_ratio', q.failover?.headroom],
    ['failover_pass', q.failover?.pass],
    ['knee_rps', q.knee?.rps],
    ['knee_p99_us', q.knee?.p99Us],
    ['knee_turned_at_rps', q.knee?.turnedAtRps],
    ['limit_by', q.limit?.by],
    ['limit_rps', q.limit?.rps],
    ['steps', q.steps.length],
    ['step_duration_ms', q.step.durationMs],
    ['step_warmup_ms', q.step.warmupMs],
  ];
  return { header: columns.map(([name]) => name), rows: [columns.map(([, value]) => value)] };
}

const STEP_HEADER = [
  'step',
  'dir',
  'purpose',
  'rerun_of',
  'asked_rps',
  'achieved_rps',
  'pass',
  'generator_limited',
  'interrupted',
  'failed_checks',
  'requests',
  'failed',
  'error_rate_ratio',
  'latency_p50_us',
  'latency_p99_us',
  'latency_p999_us',
  'latency_max_us',
  'p99_low_us',
  'p99_high_us',
  'duration_ms',
];

/** steps.csv: one row per step, in the order they ran (step numbers are 1-based, as in the report). */
export function stepsTable(q: Qualification): CsvTable {
  return {
    header: STEP_HEADER,
    rows: q.steps.map((s, i) => [
      i + 1,
      s.dir,
      s.purpose,
      s.rerunOf,
      s.askedRps,
      s.achievedRps,
      s.pass,
      s.generatorLimited,
      s.interrupted === true,
      s.failedChecks.join('; '),
      s.requests,
      s.failed,
      s.errorRate,
      s.latencyUs.p50,
      s.latencyUs.p99,
      s.latencyUs.p999,
      s.latencyUs.max,
      s.p99IntervalUs?.lowUs,
      s.p99IntervalUs?.highUs,
      s.durationMs,
    ]),
  };
}

/**
 * intervals.csv's columns: the interval's own, then failures by each reason seen, then each gauge
 * with its unit. Every interval is seen once (`see`) before the first row, so a reason or a gauge
 * that appears late still has its column; the log is read twice instead of held in memory.
 */
export class IntervalColumns {
  private readonly reasons = new Set<string>();
  private readonly gauges = new Map<string, string>();

  constructor(
    /** Leading columns of every row, e.g. a qualification's step number. */
    private readonly lead: string[] = [],
  ) {}

  see(interval: IntervalResult, catalog: GaugeCatalog): void {
    for (const reason of Object.keys(interval.errors ?? {})) this.reasons.add(reason);
    for (const key of Object.keys(interval.gauges)) {
      if (this.gauges.has(key)) continue;
      const unit = catalog[parseGaugeKey(key).name]?.unit;
      this.gauges.set(key, `gauge_${key}${unit ? `_${unit}` : ''}`);
    }
  }

  header(): string[] {
    return [
      ...this.lead,
      'start_ms',
      'warmup',
      'covered_ms',
      'sent',
      'ok',
      'failed',
      'dropped',
      'goodput_rps',
      'latency_p50_us',
      'latency_p99_us',
      'latency_max_us',
      ...[...this.reasons].map((r) => `errors_${r}`),
      ...this.gauges.values(),
    ];
  }

  /** One interval's row; `intervalMs` is what a full interval covers. */
  row(interval: IntervalResult, intervalMs: number, lead: CsvValue[] = []): CsvValue[] {
    return [
      ...lead,
      interval.tMs,
      interval.warmup,
      interval.coveredMs ?? intervalMs,
      interval.sent,
      interval.ok,
      interval.failed,
      interval.dropped,
      interval.goodputRps,
      interval.latencyUs.p50,
      interval.latencyUs.p99,
      interval.latencyUs.max,
      ...[...this.reasons].map((r) => interval.errors?.[r] ?? 0),
      ...[...this.gauges.keys()].map((key) => interval.gauges[key]),
    ];
  }
}
