import type { ProtocolReport } from '../profile/protocols/registry.ts';
import type { GaugeSpec } from './gauges.ts';

/*
 * What a driver hands back when its run ends. It lives in the recorder stage because the recorder
 * packages it into the RunResult: drivers import the recorder, never the other way round. Every
 * figure here is raw — measured, not judged; the analysis stage decides what is too much.
 */

export interface DriverReport {
  /** Virtual or wall µs from run start to the last completion. */
  elapsedUs: number;
  /** True when the run was cut short by the signal. */
  interrupted: boolean;
  /** open: every request left at its intended time; closed: each waited for a response (hides stalls). */
  loop: 'open' | 'closed';
  /** Every gauge the driver wrote into the intervals, declared once. */
  gauges: readonly GaugeSpec[];
  /** Real drivers only: the load generator's own figures (the model has no generator to saturate). */
  generator?: GeneratorFigures;
  /** Real drivers only: what the transport saw (one entry per worker thread). */
  transport?: TransportReport;
  /** The target's own stats endpoint, last poll (http.statsPath), or null when polling failed. */
  targetStats?: Record<string, unknown> | null;
  /** The model driver only. */
  model?: ModelReport;
  /** Every step of the profile's timeline the driver played (or could not reach), in planned order. */
  timeline?: TimelineOutcome[];
}

/** The tail of an `exec` event's run: what the command did. */
export interface ExecOutcome {
  /** argv as run (a string command is ["/bin/sh", "-c", command]). */
  argv: string[];
  /** null when it was killed (timeout, the run's end) or could not start. */
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  timedOut: boolean;
  /** Last lines of stdout and stderr together, at most EXEC_OUTPUT_TAIL_BYTES. */
  outputTail: string;
  /** Why it could not start (ENOENT: no such command), when it could not. */
  error?: string;
}

/**
 * One step of the timeline as it happened: a paced event (one shard every N s) gives one step per
 * shard. Times are ms from the run's start, warm-up included, like the profile's `at`.
 */
export interface TimelineOutcome {
  /** Position of the event in the timeline; multipliers (applied by the schedule) have none. */
  index?: number;
  type: string;
  /** What happened, e.g. "removeShards: 127.0.0.1:11214 leaves the ring". */
  label: string;
  plannedMs: number;
  /** When it was applied; null when the run ended (or was interrupted) first, or the target does not apply it. */
  actualMs: number | null;
  /** applied: done at actualMs; skipped: the target does not run it (exec on the model); not reached: the run ended first. */
  status: 'applied' | 'skipped' | 'not reached';
  exec?: ExecOutcome;
}

/** The generator's own figures, so the analysis can say when the generator, not the target, was the limit. */
export interface GeneratorFigures {
  /** Event-loop lag of the sending thread(s), ms: mean over threads, p99 and max of the worst. */
  eventLoopLagMs: { mean: number; p99: number; max: number };
  /** CPU of the busiest sending thread, as a fraction of one core, averaged over the run. */
  cpu: number;
  /**
   * CPU of the busiest sending thread in its busiest measured interval, fraction of one core: what
   * the CPU limit is judged on, since a mean over warm-up, ramps and drain hides saturated seconds.
   */
  cpuPeak: number;
  /** Actual write − intended send, µs (includes waiting for a free connection). */
  sendLatenessUs: { mean: number; p50: number; p99: number; max: number };
  /** Pacer wake-up − intended send, µs: only the generator's own slip (timers, a busy loop). */
  dispatchLatenessUs: { mean: number; p50: number; p99: number; max: number };
  /** Measured requests not sent because every in-flight slot was taken. */
  dropped: number;
  /** Most requests in flight at once, summed over threads. */
  inFlightCap: number;
  /** Requests that waited for a free connection slot (connections × pipelining) before their write. */
  waitedForConnection: number;
  /** Sending threads. */
  threads: number;
}

/** A transport's report (its protocol's, profile/protocols/<protocol>/spec.ts), with every worker thread's when there were several. */
export type TransportReport = ProtocolReport & {
  /** Per worker thread, when the run had more than one. */
  perWorker?: ProtocolReport[];
};

export type { HttpTransportReport } from '../profile/protocols/http/spec.ts';
export type { MemcachedTransportReport } from '../profile/protocols/memcached/spec.ts';

/** The model's own account of a run: engine figures, the request ledger, and each component's details. */
/** Where a model run stopped because its state grew past the limit: the modelled system diverged. */
export interface ModelDivergence {
  /** Virtual time of the stop, µs from the run start. */
  atUs: number;
  /** Pending events + calls + server-side operations at the stop. */
  state: number;
  limit: number;
}

export interface ModelReport {
  events: number;
  pendingEventsHighWater: number;
  traceHash: string;
  virtualEndUs: number;
  littlesLaw: { windowUs: number; inSystemMean: number; throughputRps: number; meanTimeInSystemUs: number };
  requests: { started: number; succeeded: number; failed: number; inFlight: number; failedByReason: Record<string, number> };
  /**
   * User requests and their successes by the interval of their intended send time (beside the
   * intervals' counts by completion time): the success of the requests started in each interval.
   */
  successByStart?: { bucketMs: number; started: number[]; ok: number[] };
  /** Set when the run stopped because the model's pending state passed `limits.maxModelState`. */
  diverged?: ModelDivergence;
  /** Component details by kind ("services", "caches", …) and name. */
  [componentKind: string]: unknown;
}
