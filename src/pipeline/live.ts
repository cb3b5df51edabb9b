import type { GaugeCatalog } from '../recorder/gauges.ts';
import type { Histogram } from '../recorder/histograms.ts';
import type { IntervalResult, RunRecorder } from '../recorder/run-recorder.ts';
import { clip, segmentMass } from '../schedule/rate-curve.ts';
import type { Plan } from '../schedule/types.ts';
import { JsHistogram } from 'hdr-histogram-js';

/*
 * What a run shows while it lasts: one plain-data snapshot per closed interval, for the CLI's
 * progress line and the metrics exporter. Built once per interval from the recorder's own figures,
 * never on the per-request path.
 */

export type LivePhase = 'warm-up' | 'measured' | 'drain';

export interface LiveInterval {
  /** Whose interval it is: the same object for every interval of a run. */
  run: LiveRun;
  /** The interval as the recorder closed it (warm-up included). */
  interval: IntervalResult;
  intervalUs: number;
  /** End of the interval, µs from run start. */
  elapsedUs: number;
  /** Warm-up + measured duration of the plan (the drain comes after). */
  plannedUs: number;
  phase: LivePhase;
  /** Mean rate the schedule asked for over the interval, summed over clients. */
  askedRps: number;
  /** Requests sent over the interval, per second. */
  sentRps: number;
  /** Measured requests so far (warm-up excluded), cumulative. */
  totals: LiveTotals;
  /** Cumulative latency histogram of measured requests, at LATENCY_BOUNDS_US. */
  latency: LiveLatencyBuckets;
  /** Every gauge the driver declared so far, by name. */
  gauges: GaugeCatalog;
  /** The timeline's steps due in this interval (their labels), so the progress lines mark them. */
  events?: string[];
}

/** Who the live figures belong to: Prometheus labels every series with these (metrics/exporter.ts). */
export interface LiveRun {
  profile: string;
  /**
   * The run's id: its start, ISO 8601 UTC. The segments of one run share it (`--start-at` is their
   * common start); a qualification gives its steps its own, so they add up in one run's series.
   */
  id: string;
  /** `index/count` of `--segment`; `0/1` for a whole run. */
  segment: string;
  /** Where the traffic goes, as result.json names it. */
  target: string;
}

export interface LiveTotals {
  ok: number;
  /** Failed requests by error reason ("timeout", "dropped", …); reasons never seen are absent. */
  failedByReason: Readonly<Record<string, number>>;
  byKind: Readonly<Record<string, { ok: number; failed: number }>>;
  byClient: Readonly<Record<string, { ok: number; failed: number }>>;
}

export interface LiveLatencyBuckets {
  /** Upper bounds, µs, ascending (the +Inf bucket is `count`). */
  boundsUs: readonly number[];
  /** Requests with latency ≤ each bound. */
  cumulative: number[];
  count: number;
  sumUs: number;
}

export type LiveObserver = (live: LiveInterval) => void;

/** 100 µs to 10 s, 1-2.5-5 per decade: wide enough for a cache and for a stalled service. */
export const LATENCY_BOUNDS_US: readonly number[] = [100, 250, 500, 1e3, 2.5e3, 5e3, 1e4, 2.5e4, 5e4, 1e5, 2.5e5, 5e5, 1e6, 2.5e6, 5e6, 1e7];

export function liveInterval(
  recorder: RunRecorder,
  plan: Plan,
  interval: IntervalResult,
  gauges: GaugeCatalog,
  run: LiveRun,
  steps: readonly { plannedMs: number; label: string }[] = [],
): LiveInterval {
  const startUs = interval.tMs * 1000;
  const endUs = startUs + recorder.intervalUs;
  return {
    run,
    interval,
    intervalUs: recorder.intervalUs,
    elapsedUs: endUs,
    plannedUs: plan.totalUs,
    phase: interval.warmup ? 'warm-up' : startUs >= plan.totalUs ? 'drain' : 'measured',
    askedRps: askedRps(plan, startUs, endUs),
    sentRps: (interval.sent * 1e6) / recorder.intervalUs,
    totals: totalsOf(recorder, plan),
    latency: latencyBuckets(recorder.all.latency),
    gauges,
    ...eventsIn(steps, startUs, endUs),
  };
}

function eventsIn(steps: readonly { plannedMs: number; label: string }[], startUs: number, endUs: number): { events?: string[] } {
  const due = steps.filter((s) => s.plannedMs * 1000 >= startUs && s.plannedMs * 1000 < endUs).map((s) => s.label);
  return due.length > 0 ? { events: due } : {};
}

function askedRps(plan: Plan, fromUs: number, toUs: number): number {
  let requests = 0;
  for (const client of plan.clients) for (const s of clip(client.segments, fromUs, toUs)) requests += segmentMass(s);
  return requests / ((toUs - fromUs) / 1e6);
}

function totalsOf(recorder: RunRecorder, plan: Plan): LiveTotals {
  const failedByReason: Record<string, number> = {};
  recorder.reasons.forEach((reason, code) => {
    const count = recorder.errorCounts[code] ?? 0;
    if (code > 0 && count > 0) failedByReason[reason] = count;
  });
  const counts = (b: { ok: number; failed: number }) => ({ ok: b.ok, failed: b.failed });
  return {
    ok: recorder.ok.ok,
    failedByReason,
    byKind: Object.fromEntries(plan.kinds.map((kind, i) => [kind, counts(recorder.byKind[i]!)])),
    byClient: Object.fromEntries(plan.clients.map((client, i) => [client.name, counts(recorder.byClient[i]!)])),
  };
}

/**
 * One pass over the histogram's counts array, reading it directly. This runs on the sending thread
 * once per interval: hdr-histogram-js's recorded-values iterator and its `mean` getter cost 2–7 ms
 * each on a histogram of a few thousand buckets (20 ms on a busy machine), a stall every interval
 * that made the CLI's dispatch lateness p99 several times the engine's. HDR lays its counts out in
 * blocks of `subBucketHalfCount` slots of equal width, so a slot's value is its block's first value
 * plus a multiple of that width: two value lookups per block instead of three per slot.
 */
export function latencyBuckets(h: Histogram): LiveLatencyBuckets {
  // newHistogram builds JavaScript histograms (no WebAssembly): their counts array is public.
  if (!(h instanceof JsHistogram)) throw new Error('live latency buckets need a JsHistogram');
  const cumulative = LATENCY_BOUNDS_US.map(() => 0);
  if (h.totalCount === 0) return { boundsUs: LATENCY_BOUNDS_US, cumulative, count: 0, sumUs: 0 };
  const lastIndex = Math.min(h.countsArrayIndex(h.maxValue), h.countsArrayLength - 1);
  const block = h.subBucketHalfCount;
  let bound = 0;
  let counted = 0;
  let sumUs = 0;
  for (let start = 0; start <= lastIndex; start += block) {
    const first = h.valueFromIndex(start);
    const width = h.valueFromIndex(start + 1) - first;
    const end = Math.min(start + block - 1, lastIndex);
    for (let i = start; i <= end; i++) {
      const count = h.getCountAtIndex(i);
      if (count === 0) continue;
      const lowest = first + (i - start) * width;
      // A slot counts under a bound when its whole range does, as the HDR iterators report it.
      while (bound < LATENCY_BOUNDS_US.length && lowest + width - 1 > LATENCY_BOUNDS_US[bound]!) cumulative[bound++] = counted;
      counted += count;
      sumUs += (lowest + Math.floor(width / 2)) * count;
    }
  }
  while (bound < LATENCY_BOUNDS_US.length) cumulative[bound++] = counted;
  return { boundsUs: LATENCY_BOUNDS_US, cumulative, count: h.totalCount, sumUs };
}
