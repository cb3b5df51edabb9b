import type { Knee, StepOutcome } from '../analysis/qualification.ts';

/** What the reference service's own counters say about one step (warm-up included): deltas over the step. */
export interface ServiceCounters {
  requests: number;
  lookups: number;
  hits: number;
  misses: number;
  /** Time its one JavaScript thread was busy, µs. */
  eventLoopActiveUs: number;
  /** CPU time of the whole process, µs (services that report it: the reference service since it reports `cpu.usedUs`). */
  cpuUs?: number;
  /** memcached connections its pool dialled (each beyond the idle cap is closed after use). */
  connectionsOpened?: number;
  /** Its garbage collections (services that report them: the reference service's `gc`): count and total pause, µs. */
  gc?: { minorPauses: number; minorPauseUs: number; majorPauses: number; majorPauseUs: number };
}

/** One kind of GC pause as the model holds it: how often per item of work, and how long. */
export interface PauseFit {
  perItem: number;
  meanUs: number;
}

/** The settings the reference service reports in GET /stats (durations µs). */
export interface ServiceSettings {
  /** Lookups of one request in flight at once. */
  limit: number | 'inf';
  storeDelayUs: number;
  poolMaxOpen: number;
  poolMaxIdle: number;
  checkoutTimeoutUs: number;
  operationTimeoutUs: number;
}

/** One complete step of the real qualification, with the service's counters when it reported them. */
export interface RealStep extends StepOutcome {
  /** Mean latency of the step, µs (Little's law). */
  meanUs: number;
  /** The step's latency histogram (compressed base64), when its run folder holds one. */
  latencyHistogram?: string;
  service?: ServiceCounters;
}

/** The memcached figure of a low-rate `stampede run` against memcached: per-get latency, µs. */
export interface MemcachedGetFigures {
  dir: string;
  p50Us: number;
  p99Us: number;
}

/** Everything fitted, and where each figure came from (the report prints both). */
export interface FittedParameters {
  /** CPU per request (utilisation law: CPU time ÷ requests over the passing steps), µs. */
  demandUs: number;
  /** What the demand was read from: the process's CPU time, or (a service that does not report it) its event loop's busy time. */
  demandFrom: 'process CPU time' | 'event-loop busy time';
  /** The most requests per second one core could serve at that demand (1 s ÷ demand). */
  coreCapacityRps: number;
  /** Lookups per request, measured by the service. */
  lookupsPerRequest: number;
  /** CPU per URI (demand ÷ lookups per request): the model's itemTime on the service's one core, µs. */
  itemTimeUs: number;
  /** Cores running the service's CPU time: the service has one JavaScript thread. */
  cpus: 1;
  /**
   * Its GC pauses, when it reports them: a pause stops its one thread, so the model's per-item CPU
   * becomes a mix — most items take the base time, one in 1/perItem also takes a pause and holds
   * the core for it (pauses then come as often as work does, as allocation-driven collections do).
   * The mean per item stays `itemTimeUs`.
   */
  pauses?: { minor: PauseFit; major: PauseFit };
  /** Little's law at the knee (or the highest passing step): requests in flight = rate × mean latency. For the report. */
  inFlightAtKnee: { rps: number; requests: number };
  /** hits ÷ (hits + misses) over the steps used; with the keys the model's warm cache holds to match it. */
  hitRatio: number;
  warmKeys?: number;
  memcached: { getUs: number; from: string };
  settings: ServiceSettings;
  /** The generator's connections to the service (http.connections × pipelining): the callers' concurrency. */
  callerConnections: number;
  callerPipelining: number;
  callerTimeoutUs: number;
  /**
   * The service at low load (every step whose CPU kept its core under LOW_LOAD_UTILISATION busy,
   * their latencies added up; at least the lowest step): what the residual delay is fitted to.
   * `rps` is the lowest step's, where the model is probed; `quantilesUs` the latency at each
   * hundredth (the 0.5th to the 99.5th percentile).
   */
  lowLoad: { rps: number; stepsRps: number[]; p50Us: number; p99Us: number; quantilesUs: number[] };
  /** The model's p50 at the low-load rate before the residual delay was added, µs. */
  modelLowLoadP50Us: number;
  /** Real low-load p50 − the model's: the residual delay's median, µs. */
  networkUs: number;
  /**
   * The residual delay's distribution: each low-load quantile − the model's p50 (floored at 0), as
   * equally likely values — the network, wake-ups, timer slack and pauses the model does not see,
   * with the spread they have, in front of the service, µs.
   */
  networkDelayUs: number[];
}

export type Multiple = 0.5 | 0.8 | 1;
export const MULTIPLES: readonly Multiple[] = [0.5, 0.8, 1];

/** A step's rate and p99: the service's steps, and the model run at the same rates. */
export interface CurvePoint {
  rps: number;
  p99Us: number;
}

/** The p99 at a rate: a step's own, read between two steps, or the nearest step's outside them. */
export interface P99At {
  p99Us: number;
  from: 'step' | 'interpolated' | 'nearest step';
  /** The step rates it came from. */
  stepsRps: number[];
}

/** One row of the side-by-side: a multiple of the service's capacity, both curves read the same way. */
export interface LoadRow {
  multiple: Multiple;
  rps: number;
  real: P99At;
  model: P99At;
  /** model ÷ real − 1. */
  difference: number;
}

/** Where p99 reached KNEE_FACTOR × the lowest step's p99, read between the two steps around it. */
export interface KneeEstimate {
  rps: number;
  baseP99Us: number;
  /** The last step below the turn and the first at or above it. */
  betweenRps: [number, number];
}

export interface KneeRow {
  real?: KneeEstimate;
  model?: KneeEstimate;
  /** model ÷ real − 1, when both turned. */
  difference?: number;
  /** The knees the two qualifications reported (step rates, so as coarse as their search). */
  realQualification?: Knee;
  modelQualification?: Knee;
}

export interface CalibrationTargets {
  knee: number;
  p99At08: number;
}

export interface CalibrationVerdict {
  met: boolean;
  /** Where the model and the service disagree beyond a target, and by how much, one line each. */
  disagreements: string[];
}

export const CALIBRATION_SCHEMA = 'stampede.calibration/1';

/** calibration.json. */
export interface Calibration {
  schema: typeof CALIBRATION_SCHEMA;
  realDir: string;
  topologyFile: string;
  calibratedTopologyFile: string;
  profile: string;
  capacity: { realRps: number; modelRps: number };
  fitted: FittedParameters;
  knee: KneeRow;
  rows: LoadRow[];
  targets: CalibrationTargets;
  verdict: CalibrationVerdict;
  /** The model's qualification folder, and its runs at the service's step rates, relative to the calibration folder. */
  model: { qualificationDir: string; stepDirs: string[] };
  /** The two p99 curves at the service's step rates. */
  curves: { real: CurvePoint[]; model: CurvePoint[] };
}
