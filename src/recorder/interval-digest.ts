/*
 * A run's intervals in bounded memory. Every closed interval goes to intervals.jsonl in the run folder
 * (the recorder hands it to its `onInterval` sink) and into this digest, which keeps only what the
 * result, the analysis and the reports need, whatever the run's length:
 * - per gauge: min, max and last over every interval, and the mean over the measured ones;
 * - a series of at most SERIES_POINTS points for the charts: while the run is short, the intervals
 *   themselves; when it outgrows that, neighbours merge pairwise (counts summed, goodput averaged,
 *   gauges averaged — a per-interval maximum takes the larger, so a peak survives the merge —,
 *   latency p50 averaged and p99/max the worst interval's), so each point covers `spanMs` (a power
 *   of two of intervals).
 */
import { parseGaugeKey, type GaugeCatalog } from './gauges.ts';

/** The file, in the run folder, with every interval (one JSON object a line). */
export const INTERVALS_FILE = 'intervals.jsonl';

/** Most points of the chart series kept in memory and in result.json. */
export const SERIES_POINTS = 512;

export interface IntervalResult {
  /** Interval start, ms from run start. */
  tMs: number;
  /** True while the interval overlaps the warm-up. */
  warmup: boolean;
  sent: number;
  ok: number;
  failed: number;
  dropped: number;
  /** Successful requests completed in the interval, per second. */
  goodputRps: number;
  latencyUs: { p50: number; p99: number; max: number };
  gauges: Readonly<Record<string, number>>;
  /** Failed and dropped requests of the interval by reason (only reasons seen; bounded by the reasons registered). */
  errors?: Readonly<Record<string, number>>;
  /** Set only on a last interval cut short by the end of the run: the ms it covered (rates divide by this, not by the interval). */
  coveredMs?: number;
}

export interface GaugeStats {
  min: number;
  max: number;
  last: number;
  /** Mean over the measured (post-warm-up) intervals; absent when the gauge was only seen in the warm-up. */
  measuredMean?: number;
}

/** What result.json keeps of the intervals: bounded, however long the run. */
export interface IntervalsSummary {
  /** Every interval, in order: INTERVALS_FILE in the run folder; absent when that file is not whole (the disk cut it, or it gave way to result.json). */
  file?: typeof INTERVALS_FILE;
  count: number;
  intervalMs: number;
  /** The chart series: each point covers `spanMs` (the interval, or a power of two of them). */
  spanMs: number;
  series: IntervalResult[];
  gauges: Record<string, GaugeStats>;
}

interface GaugeAccumulator {
  min: number;
  max: number;
  last: number;
  measuredSum: number;
  measuredCount: number;
}

export class IntervalDigest {
  private count = 0;
  /** Intervals per series point. */
  private span = 1;
  private readonly series: IntervalResult[] = [];
  /** The point being filled and how many intervals it holds. */
  private open: IntervalResult | undefined;
  private openCount = 0;
  private readonly gauges = new Map<string, GaugeAccumulator>();
  /** Names of the gauges that are per-interval maxima (`maxOf`): merged by the larger value. */
  private readonly maxima = new Set<string>();

  constructor(private readonly intervalUs: number) {}

  /** The run's gauge specs, as the driver declares them (before its first interval). */
  declareGauges(catalog: GaugeCatalog): void {
    for (const spec of Object.values(catalog)) if (spec.maxOf !== undefined) this.maxima.add(spec.name);
  }

  add(interval: IntervalResult): void {
    this.count++;
    this.addGauges(interval);
    this.open = this.open ? mergePoints(this.open, this.openCount, interval, 1, this.intervalUs, this.maxima) : { ...interval };
    if (++this.openCount < this.span) return;
    this.series.push(this.open);
    this.open = undefined;
    this.openCount = 0;
    if (this.series.length >= SERIES_POINTS) this.halve();
  }

  summary(): IntervalsSummary {
    const series = this.open ? [...this.series, this.open] : [...this.series];
    const gauges: Record<string, GaugeStats> = {};
    for (const [key, g] of this.gauges) {
      gauges[key] = { min: g.min, max: g.max, last: g.last, ...(g.measuredCount > 0 && { measuredMean: g.measuredSum / g.measuredCount }) };
    }
    const intervalMs = this.intervalUs / 1000;
    return { file: INTERVALS_FILE, count: this.count, intervalMs, spanMs: intervalMs * this.span, series, gauges };
  }

  private addGauges(interval: IntervalResult): void {
    for (const [key, value] of Object.entries(interval.gauges)) {
      let g = this.gauges.get(key);
      if (!g) this.gauges.set(key, (g = { min: value, max: value, last: value, measuredSum: 0, measuredCount: 0 }));
      g.min = Math.min(g.min, value);
      g.max = Math.max(g.max, value);
      g.last = value;
      if (!interval.warmup) {
        g.measuredSum += value;
        g.measuredCount++;
      }
    }
  }

  /** Neighbouring points merged pairwise: half the points, each covering twice the time. */
  private halve(): void {
    const merged: IntervalResult[] = [];
    for (let i = 0; i < this.series.length; i += 2) {
      const b = this.series[i + 1];
      merged.push(b ? mergePoints(this.series[i]!, this.span, b, this.span, this.intervalUs, this.maxima) : this.series[i]!);
    }
    this.series.splice(0, this.series.length, ...merged);
    this.span *= 2;
  }
}

/** Two neighbouring points covering `na` and `nb` intervals as one. */
function mergePoints(a: IntervalResult, na: number, b: IntervalResult, nb: number, intervalUs: number, maxima: ReadonlySet<string>): IntervalResult {
  const weighted = (x: number, y: number) => (x * na + y * nb) / (na + nb);
  const gauges: Record<string, number> = { ...a.gauges };
  for (const [key, value] of Object.entries(b.gauges)) {
    const had = a.gauges[key];
    gauges[key] = had === undefined ? value : maxima.has(parseGaugeKey(key).name) ? Math.max(had, value) : weighted(had, value);
  }
  const ok = a.ok + b.ok;
  // Only the run's last interval can be cut short, so only `b` can carry coveredMs.
  const coveredMs = b.coveredMs === undefined ? undefined : ((na + nb - 1) * intervalUs) / 1000 + b.coveredMs;
  return {
    tMs: a.tMs,
    warmup: a.warmup || b.warmup,
    sent: a.sent + b.sent,
    ok,
    failed: a.failed + b.failed,
    dropped: a.dropped + b.dropped,
    goodputRps: (ok * 1e6) / ((na + nb) * intervalUs),
    latencyUs: { p50: weighted(a.latencyUs.p50, b.latencyUs.p50), p99: Math.max(a.latencyUs.p99, b.latencyUs.p99), max: Math.max(a.latencyUs.max, b.latencyUs.max) },
    gauges,
    ...mergedErrors(a.errors, b.errors),
    ...(coveredMs !== undefined && { coveredMs }),
  };
}

/** The summary of intervals held in full (a result.json of schema 2, read back). */
export function digestOf(intervals: readonly IntervalResult[], intervalMs: number): IntervalsSummary {
  const digest = new IntervalDigest(intervalMs * 1000);
  for (const interval of intervals) digest.add(interval);
  return digest.summary();
}

/** Two intervals' failures by reason, summed by name (`{}` when neither failed). */
export function mergedErrors(a: Readonly<Record<string, number>> | undefined, b: Readonly<Record<string, number>> | undefined): { errors?: Record<string, number> } {
  if (!a && !b) return {};
  const errors: Record<string, number> = { ...a };
  for (const [reason, n] of Object.entries(b ?? {})) errors[reason] = (errors[reason] ?? 0) + n;
  return { errors };
}
