import type { RealismFlag } from './realism/types.ts';

export const QUALIFICATION_SCHEMA = 'stampede.qualification/1';

/** One rate step of a qualification, as measured. */
export interface StepOutcome {
  /** Asked (offered) rate of the step, requests per second. */
  askedRps: number;
  achievedRps: number;
  /** Every SLO check held. */
  pass: boolean;
  /** Names of the checks that failed. */
  failedChecks: string[];
  latencyUs: { p50: number; p99: number; p999: number; max: number };
  /** 99% confidence interval of the step's p99 (binomial rank bounds on its histogram); absent in older files. */
  p99IntervalUs?: { lowUs: number; highUs: number };
  requests: number;
  failed: number;
  errorRate: number;
  /** The generator, not the target, limited this step (saturated, or achieved < asked). */
  generatorLimited: boolean;
  /** Why the generator limited it, each with its figure (absent when it did not, and in older files). */
  generatorReasons?: string[];
  /** The target saturated at the test's concurrency in this step (analysis.saturation's text), with the generator healthy. */
  targetSaturation?: string;
  /** Measured duration of the step (stretched at low rates to collect enough samples), ms. */
  durationMs: number;
  /** The step's run folder, relative to the qualification folder. */
  dir: string;
  /**
   * The step was cut short (SIGINT, SIGTERM): recorded as run, but never judged — it is left out of
   * the capacity search, the knee and the limit. Absent when the step ran to its end.
   */
  interrupted?: true;
}

export interface Knee {
  /** The last rate before p99 turned up. */
  rps: number;
  p99Us: number;
  /** The first rate where p99 exceeded KNEE_FACTOR × the lowest step's p99. */
  turnedAtRps: number;
}

export interface Limit {
  by: 'generator' | 'target';
  rps: number;
  detail: string;
}

export interface CapacityAnalysis {
  /** Highest asked rate at which every SLO check held, below the lowest failing rate; 0 when none held. */
  capacityRps: number;
  knee?: Knee;
  limit?: Limit;
  expectedPeakRps: number;
  /** capacity / peak − 1. */
  headroom: number;
  /** Present when production.dataCentres ≥ 2: the peak plus one data centre's traffic shifted here. */
  failover?: { dataCentres: number; demandRps: number; headroom: number; pass: boolean };
}

export type QualificationVerdict = 'PASS' | 'FAIL' | 'INVALID';

/** qualification.json: everything a qualification report needs. */
export interface Qualification extends CapacityAnalysis {
  schema: typeof QUALIFICATION_SCHEMA;
  profile: { name: string; description: string; file: string; sha256: string; overrides: string[] };
  target: string;
  seed: number;
  /** Where the expected peak came from. */
  peakSource: 'production.peakRps' | 'profile peak';
  step: { durationMs: number; warmupMs: number };
  steps: StepOutcome[];
  /**
   * The qualification was stopped before its search finished: its capacity comes from the complete
   * steps only, and its verdict is INVALID (a qualification cut short cannot pass).
   */
  interrupted: boolean;
  /** The SLO's unscoped p99 limit, µs, drawn on the capacity curve. */
  sloP99Us?: number;
  /** Every latency limit of the SLO (scoped ones named with their slice), drawn on the capacity curve; absent in older files. */
  sloLatency?: { label: string; maxUs: number }[];
  verdict: QualificationVerdict;
  /** Why the verdict is what it is, one line each. */
  reasons: string[];
  flags: RealismFlag[];
  startedAt: string;
  wall: { finishedAt: string; elapsedMs: number };
}
