import type { Breakdown } from './breakdown.ts';
import { combineOf, parseGaugeKey, SHARED_GAUGES, specOf, type GaugeCatalog, type GaugeSpec } from './gauges.ts';
import { decodeFromCompressedBase64, encodeIntoCompressedBase64 } from './histograms.ts';
import { type EncodedIntervalHistograms, IntervalHistograms } from './interval-histograms.ts';
import { type IntervalResult, mergedErrors } from './interval-digest.ts';
import type { RunRecorder } from './run-recorder.ts';

/**
 * What one worker's RunRecorder ships to the main thread: counters and every histogram, encoded
 * (compressed HdrHistogram, exact to the histogram's precision), never per-value messages.
 */
export interface RecorderPart {
  reasons: string[];
  errorCounts: number[];
  sentCount: number;
  notSentCount: number;
  droppedCount: number;
  warmupSent: number;
  lastCompletionUs: number;
  ok: EncodedBreakdown;
  failed: EncodedBreakdown;
  byKind: EncodedBreakdown[];
  byClient: EncodedBreakdown[];
  serviceTime: string;
}

/** One closed interval of a worker, sent as it closes: the interval and its tagged histograms, encoded. */
export interface IntervalPart {
  interval: IntervalResult;
  histograms: EncodedIntervalHistograms;
}

export interface EncodedBreakdown {
  ok: number;
  failed: number;
  latency: string;
}

function encodeBreakdown(b: Breakdown): EncodedBreakdown {
  return { ok: b.ok, failed: b.failed, latency: encodeIntoCompressedBase64(b.latency) };
}

function addBreakdown(into: Breakdown, part: EncodedBreakdown): void {
  into.ok += part.ok;
  into.failed += part.failed;
  into.latency.add(decodeFromCompressedBase64(part.latency));
}

export function exportRecorderPart(r: RunRecorder): RecorderPart {
  return {
    reasons: [...r.reasons],
    errorCounts: [...r.errorCounts],
    sentCount: r.sentCount,
    notSentCount: r.notSentCount,
    droppedCount: r.droppedCount,
    warmupSent: r.warmupSent,
    lastCompletionUs: r.lastCompletionUs,
    ok: encodeBreakdown(r.ok),
    failed: encodeBreakdown(r.failed),
    byKind: r.byKind.map(encodeBreakdown),
    byClient: r.byClient.map(encodeBreakdown),
    serviceTime: encodeIntoCompressedBase64(r.serviceTime),
  };
}

/** Two workers' same interval: counts added; cut short (coveredMs) only when both were. */
function addIntervals(a: IntervalResult, b: IntervalResult): IntervalResult {
  const sum: IntervalResult = {
    ...a,
    sent: a.sent + b.sent,
    ok: a.ok + b.ok,
    failed: a.failed + b.failed,
    dropped: a.dropped + b.dropped,
    goodputRps: a.goodputRps + b.goodputRps,
    ...mergedErrors(a.errors, b.errors),
  };
  delete sum.coveredMs;
  if (a.coveredMs !== undefined && b.coveredMs !== undefined) sum.coveredMs = Math.max(a.coveredMs, b.coveredMs);
  return sum;
}

/**
 * Merges workers' parts into `into` (a recorder that recorded nothing itself): totals, every
 * breakdown and error counts by reason name. Intervals arrive earlier, through an IntervalMerger.
 */
export function mergeRecorderParts(into: RunRecorder, parts: readonly RecorderPart[]): void {
  for (const part of parts) {
    into.sentCount += part.sentCount;
    into.notSentCount += part.notSentCount;
    into.droppedCount += part.droppedCount;
    into.warmupSent += part.warmupSent;
    into.lastCompletionUs = Math.max(into.lastCompletionUs, part.lastCompletionUs);
    part.reasons.forEach((name, code) => {
      if (code > 0) into.errorCounts[into.reason(name)]! += part.errorCounts[code] ?? 0;
    });
    addBreakdown(into.ok, part.ok);
    addBreakdown(into.failed, part.failed);
    part.byKind.forEach((b, i) => into.byKind[i] && addBreakdown(into.byKind[i], b));
    part.byClient.forEach((b, i) => into.byClient[i] && addBreakdown(into.byClient[i], b));
    into.serviceTime.add(decodeFromCompressedBase64(part.serviceTime));
  }
}

/**
 * Workers' intervals merged while the run lasts: interval i is appended to `into` (the interval
 * log, the digest, the run folder's intervals.jsonl) as soon as every worker has sent its interval i
 * or finished, with the workers' interval histograms added — so percentiles are those of the whole
 * run, not averages of workers'. Only intervals a slower worker has not reached yet are held.
 */
export class IntervalMerger {
  private readonly sent: number[];
  private readonly finished: boolean[];
  private readonly pending = new Map<number, IntervalPart[]>();
  private next = 0;

  constructor(
    private readonly into: RunRecorder,
    workers: number,
    /** The run's gauges, so each combines by its kind (see combineOf); without one, by its name. */
    private readonly catalog: GaugeCatalog = {},
  ) {
    this.sent = Array.from({ length: workers }, () => 0);
    this.finished = this.sent.map(() => false);
  }

  add(worker: number, part: IntervalPart): void {
    const index = this.sent[worker]!++;
    const parts = this.pending.get(index);
    if (parts) parts.push(part);
    else this.pending.set(index, [part]);
    this.drain();
  }

  /** The worker sends no more intervals. */
  finish(worker: number): void {
    this.finished[worker] = true;
    this.drain();
  }

  private drain(): void {
    const complete = (i: number) => this.sent.every((n, w) => n > i || this.finished[w]);
    while (this.pending.has(this.next) && complete(this.next)) {
      const { interval, histograms } = mergeIntervalParts(this.pending.get(this.next)!, this.into.plan.kinds.length, this.catalog);
      this.pending.delete(this.next++);
      this.into.appendMergedInterval(interval, histograms);
    }
  }
}

/**
 * The same interval of several recorders (worker threads, or the segments of a run on several hosts)
 * as one: counts added, histograms added exactly (so its percentiles are those of the whole), gauges
 * combined by their kind.
 */
export function mergeIntervalParts(parts: readonly IntervalPart[], kinds: number, catalog: GaugeCatalog): { interval: IntervalResult; histograms: IntervalHistograms } {
  const histograms = new IntervalHistograms(kinds);
  let merged: IntervalResult | undefined;
  for (const { interval, histograms: encoded } of parts) {
    histograms.add(encoded);
    merged = merged ? addIntervals(merged, interval) : { ...interval };
  }
  const latency = histograms.all();
  const latencyUs = latency.totalCount === 0 ? { p50: 0, p99: 0, max: 0 } : { p50: latency.getValueAtPercentile(50), p99: latency.getValueAtPercentile(99), max: latency.maxValue };
  return {
    interval: {
      ...merged!,
      latencyUs,
      gauges: combineGauges(
        parts.map((p) => p.interval.gauges),
        catalog,
      ),
    },
    histograms,
  };
}

/** Gauges of one interval from several recorders, each combined as its spec says (combineOf): summed, averaged, the worst, or the first's. */
export function combineGauges(samples: readonly Readonly<Record<string, number>>[], catalog: GaugeCatalog): Record<string, number> {
  const sums: Record<string, { value: number; n: number }> = {};
  for (const gauges of samples) {
    for (const [key, value] of Object.entries(gauges)) {
      const seen = sums[key];
      if (!seen) {
        sums[key] = { value, n: 1 };
        continue;
      }
      const how = combineOf(specOf(catalog, key) ?? specByName(key));
      seen.value = how === 'max' ? Math.max(seen.value, value) : how === 'first' ? seen.value : seen.value + value;
      seen.n++;
    }
  }
  return Object.fromEntries(Object.entries(sums).map(([key, { value, n }]) => [key, combineOf(specOf(catalog, key) ?? specByName(key)) === 'mean' ? value / n : value]));
}

/**
 * Workers post their intervals before their gauge specs reach the main thread: the shared gauges
 * (hit ratio, connections, in flight) are known here, the generator's and the target's by name.
 */
function specByName(key: string): GaugeSpec | undefined {
  const shared = Object.values(SHARED_GAUGES).find((spec) => spec.name === parseGaugeKey(key).name);
  if (shared) return shared;
  if (key.startsWith('generator')) return { name: key, unit: 'count', family: 'generator', help: '' };
  if (key.startsWith('target.')) return { name: key, unit: 'count', family: 'target', help: '' };
  return undefined;
}
