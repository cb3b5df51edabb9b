import type { Profile } from '../profile/types.ts';
import type { PlanLimits } from '../profile/schema.ts';
import { protocolOf, type TargetSpec } from '../profile/protocols/registry.ts';
import type { PlannedLoad } from '../profile/protocols/spec.ts';
import { allKinds, resolveClients } from '../schedule/plan.ts';
import { meanOf, upperOf } from '../schedule/sample.ts';
import type { Plan } from '../schedule/types.ts';
import { SERIES_POINTS } from '../recorder/interval-digest.ts';
import { formatCount } from './format.ts';
import { PlanRefusedError, type PlanFigures, type PlanRefusal } from './plan-refused.ts';

/*
 * The plan check: how big a run will be, judged before any traffic or output folder. It lives in
 * analysis because it judges (limits, a verdict) and needs the schedule's plan and the recorder's
 * sizes — both stages before analysis — while pipeline, qualify, sweep and the CLI, which call it,
 * come after.
 *
 * Memory is an estimate, not a measurement: what a run holds that grows with its plan, plus a base.
 *   base                      BASE_MB (Node, the modules, the model or the driver at rest)
 * + histograms                (3 outcomes + kinds + clients + service time + interval) × HISTOGRAM_BYTES
 * + requests in flight        inFlight × (REQUEST_BYTES + mean keys per request × KEY_BYTES), the mean
 *                             over the plan's requests (clients weighted by their expected requests)
 *                             inFlight = the target protocol's in-flight bound (its spec's
 *                             inFlightBound: the section's inFlightCap, or the model's from the plan)
 * + the largest request       keys per request (upper bound) × (KEY_BYTES + 4 B for the schedule's key buffer)
 * + the interval series       SERIES_POINTS × INTERVAL_BYTES (intervals themselves go to disk)
 * File sizes: latency.hlog and intervals.jsonl grow by about HLOG_INTERVAL_BYTES and
 * JSONL_INTERVAL_BYTES per interval; result.json is bounded (histograms per slice + the series).
 */

const MB = 1024 * 1024;
const BASE_MB = 100;
/** One HDR latency histogram: 3 significant digits, 32-bit counts, grown to a range of about an hour of µs. */
const HISTOGRAM_BYTES = 100_000;
/** A request in flight: pacer slot, promise, timers, the encoded request or the model's call records. */
const REQUEST_BYTES = 1_000;
/** Per key of a request in flight: its wire name and, in the model, one call per key. */
const KEY_BYTES = 150;
/** One interval in memory or pretty-printed in result.json, and as a line of intervals.jsonl (a model topology's few dozen gauges included). */
const INTERVAL_BYTES = 2_000;
const JSONL_INTERVAL_BYTES = 1_200;
/** One line of latency.hlog: the tag, times and a compressed histogram (1.3 KB at 4,000 rps on the model). */
const HLOG_INTERVAL_BYTES = 1_500;
/** One encoded histogram in result.json, pretty-printed. */
const RESULT_SLICE_BYTES = 8_000;

export interface PlanScope {
  /** Recorder interval, µs (default 1 s). */
  intervalUs?: number | undefined;
  /** Runs of this plan's size (a qualification's steps, a sweep's points); default 1. */
  runs?: number;
  /** All runs' duration, s, when they differ (a qualification's steps); default runs × the plan's. */
  durationS?: number;
  /** Runs at the same time (a sweep's worker threads); default 1. */
  concurrent?: number;
  /** The target the run sends to: its protocol bounds the requests in flight. */
  target: TargetSpec;
}

/** The figures of a plan, for `validate` and the check. `plan` is the largest run when `runs` > 1. */
export function planFigures(profile: Profile, plan: Plan, scope: PlanScope): PlanFigures {
  const runs = scope.runs ?? 1;
  const intervals = Math.ceil(plan.totalUs / (scope.intervalUs ?? 1_000_000));
  const { upper: keysPerRequest, mean: meanKeys } = batchSizes(profile, plan);
  const slices = 3 + plan.kinds.length + plan.clients.length;
  const inFlight = protocolOf(scope.target).inFlightBound(profile, plannedLoad(plan));
  const bytes =
    // The totals' slices, the interval's (untagged, warm-up, one per kind, all) and the service time.
    (slices + 4 + plan.kinds.length) * HISTOGRAM_BYTES +
    inFlight * (REQUEST_BYTES + meanKeys * KEY_BYTES) +
    keysPerRequest * (KEY_BYTES + 4) +
    Math.min(intervals, SERIES_POINTS) * INTERVAL_BYTES;
  return {
    runs,
    requests: Math.round(plan.expectedRequests),
    keysPerRequest,
    intervals,
    durationS: scope.durationS ?? (plan.totalUs / 1e6) * runs,
    memoryMb: Math.ceil((BASE_MB + bytes / MB) * (scope.concurrent ?? 1)),
    files: {
      // Per interval: the untagged line and one per request kind (the warm-up's lines are few).
      latencyLogMb: ((intervals * (1 + plan.kinds.length) * HLOG_INTERVAL_BYTES) / MB) * runs,
      intervalsMb: ((intervals * JSONL_INTERVAL_BYTES) / MB) * runs,
      resultMb: ((slices * RESULT_SLICE_BYTES + Math.min(intervals, SERIES_POINTS) * INTERVAL_BYTES) / MB) * runs,
    },
  };
}

/** Keys per request: the largest any client may send, and the mean over the plan's requests. */
function batchSizes(profile: Profile, plan: Plan): { upper: number; mean: number } {
  const clients = resolveClients(profile, allKinds(profile));
  const upper = clients.reduce((most, c) => c.batch.reduce((m, d) => Math.max(m, upperOf(d)), most), 1);
  let keys = 0;
  clients.forEach((c, i) => {
    const weight = c.weights.reduce((a, b) => a + b, 0);
    const clientMean = c.batch.reduce((sum, d, j) => sum + (meanOf(d) * c.weights[j]!) / weight, 0);
    keys += clientMean * (plan.clients[i]?.expectedRequests ?? 0);
  });
  return { upper, mean: plan.expectedRequests > 0 ? Math.max(1, keys / plan.expectedRequests) : 1 };
}

/** The plan's requests and the sum of each client's peak rate: what a protocol without a cap of its own (the model) bounds its in-flight requests by. */
function plannedLoad(plan: Plan): PlannedLoad {
  const peakRps = plan.clients.reduce((sum, c) => sum + c.segments.reduce((m, s) => Math.max(m, s.fromRps, s.toRps), 0), 0);
  return { expectedRequests: plan.expectedRequests, peakRps };
}

/** Every limit the figures pass, in the order a user would fix them. */
export function planRefusals(figures: PlanFigures, limits: PlanLimits): PlanRefusal[] {
  const checks: [keyof PlanLimits, number, string][] = [
    ['maxRuns', figures.runs, 'runs'],
    ['maxRequests', figures.requests, `requests${figures.runs > 1 ? ' in the largest run' : ''}`],
    ['maxBatch', figures.keysPerRequest, 'keys per request'],
    ['maxIntervals', figures.intervals, 'intervals'],
    ['maxDurationS', figures.durationS, 's of traffic'],
    ['maxMemoryMb', figures.memoryMb, 'MB estimated memory'],
  ];
  return checks
    .filter(([limit, figure]) => !(figure <= limits[limit]))
    .map(([limit, figure, what]) => ({ limit, figure, max: limits[limit], text: `${formatCount(figure)} ${what} > limits.${limit} ${formatCount(limits[limit])}` }));
}

/** Throws PlanRefusedError when the plan is over a limit, unless `force`; returns the figures. */
export function checkPlan(profile: Profile, plan: Plan, scope: PlanScope & { force?: boolean | undefined }): PlanFigures {
  const figures = planFigures(profile, plan, scope);
  const refusals = planRefusals(figures, profile.limits);
  if (refusals.length > 0 && !scope.force) throw new PlanRefusedError(figures, refusals);
  return figures;
}
