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
  /** Why the search ran this step; absent in older files. */
  purpose?: StepPurpose;
  /** This step re-runs the step of that number (1-based): its failure sat in one interval, or the generator limited it. */
  rerunOf?: number;
  /** The step failed, and its failure sits in one interval (or a stall across two neighbours): re-run once. */
  spoiledBy?: SpoiledInterval;
}

/**
 * Why the search ran a step: the first rate, growing until the SLO breaks, going down while even
 * the lowest rate fails, bisecting the bracket, repeating a rate that decides the capacity, or
 * re-running a step spoiled by one interval or limited by the generator.
 */
export type StepPurpose = 'start' | 'grow' | 'down' | 'bisect' | 'repeat' | 'rerun';

/** Where a failing step's failure sits when one interval (or two neighbours) holds it and every other interval is clean. */
export interface SpoiledInterval {
  /** Start of the spoiled interval, ms from the step's run start (as in its intervals.jsonl). */
  tMs: number;
  /** How long the spoiled stretch is: one interval, or two neighbours when a stall straddles them. */
  spanMs: number;
  /** What broke there and how clean the rest was, one line. */
  detail: string;
}

/** One rate, judged by all its complete steps (capacity.ts judgeRates has the rule). */
export interface RateJudgement {
  rps: number;
  /** The steps (1-based numbers) that count for this rate. */
  steps: number[];
  /** Steps set aside by their re-run: spoiled by one interval and the re-run passed, or limited by the generator and the re-run was not. */
  setAside?: number[];
  /** A step waiting for its re-run (spoiled, or limited by the generator): the search re-runs it next. */
  awaitingRerun?: number;
  /** Every step that counts passed, and none was limited by the generator. */
  pass: boolean;
  generatorLimited: boolean;
}

/**
 * The capacity over the repeats: series k is every rate's k-th counted step, and its capacity the
 * highest rate it passed below the lowest it failed. `lowRps` is the capacity itself; `highRps`
 * the most one series found; `share` = high / low − 1.
 */
export interface CapacitySpread {
  /** Repeat series compared: the most counted steps of the bracket's two rates. */
  series: number;
  lowRps: number;
  highRps: number;
  share: number;
}

/** How the search ran and why it stopped; absent in older files. */
export interface SearchSummary {
  /** Steps run at each rate that decides the capacity (the final pass and fail). */
  repeats: number;
  resolution: number;
  maxSteps: number;
  /** The highest rate that passed every repeat and the lowest that did not (by the target or the generator). */
  bracket: { passRps?: number; failRps?: number; failedBy?: 'target' | 'generator' };
  /** Every rate tried, judged by all its steps. */
  rates: RateJudgement[];
  /** Why the search stopped, one line. */
  stopped: string;
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
  /** The capacity over the repeats of the steps that decide it; absent in older files. */
  spread?: CapacitySpread;
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
  /** How the search ran: repeats, the bracket, every rate's judgement, why it stopped; absent in older files. */
  search?: SearchSummary;
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
