import { DEFAULT_GENERATOR_LIMITS, type GeneratorLimits } from '../profile/schema.ts';
import { formatUs } from './format.ts';

/*
 * Every threshold the analysis judges a run by, in one place, each shown in the report with its
 * value: a verdict the reader cannot trace to a number is not one they can trust.
 */

/**
 * Limits past which the generator, not the target, is taken to have shaped the run: the profile's
 * `generator:` section, whose defaults (the schema is their home) are these.
 */
export const GENERATOR_LIMITS: GeneratorLimits = DEFAULT_GENERATOR_LIMITS;

/** Below this many samples beyond a percentile, the percentile is one or two requests: no verdict. */
export const MIN_TAIL_SAMPLES = 10;
/** Below this many, the percentile is quoted but wobbles from run to run. */
export const STABLE_TAIL_SAMPLES = 50;
/** Asked rate reached to within this fraction, or the generator was the limit. */
export const ACHIEVED_FRACTION = 0.9;
/** Dropped sends above this share of the scheduled requests invalidate the run. */
export const DROPPED_INVALID_SHARE = 0.001;
/** A hit ratio this close to 1 is one production rarely sees. */
export const SUSPICIOUS_HIT_RATIO = 0.995;
/** Hit ratio differences beyond this (absolute) from production's. */
export const HIT_RATIO_TOLERANCE = 0.05;
/** Errors at least this share of completions, answered at least this many times faster than successes, flatter the percentiles. */
export const FAST_ERRORS = { share: 0.01, speedup: 2 } as const;
/** Test figures within a factor of this of production's count as representative. */
export const PRODUCTION_FACTOR = 2;
/** A run shorter than this rarely reaches steady state (pools, caches, queues). */
export const MIN_STEADY_RUN_US = 20_000_000;
/** Hot-key detectors of 2018 were tuned for values up to this (incidents §2, 2018-04). */
export const SMALL_VALUE_BYTES = 5_000;
/** p99 beyond this multiple of the lightest step's p99 is where latency has turned up. */
export const KNEE_FACTOR = 2;

/** Time to recover: this many consecutive series points inside the limits, after an event, count as recovered. */
export const RECOVERY_HOLD_POINTS = 3;
/** Without a p99 SLO, an interval's p99 is back inside at this multiple of the median p99 before the first event. */
export const RECOVERY_BASELINE_P99_FACTOR = 2;
/** Without an error-rate SLO, an interval's error rate is back inside at or below this. */
export const RECOVERY_DEFAULT_ERROR_RATE = 0.01;
/** A hit ratio is back inside within this many points (absolute) of its mean before the first event. */
export const RECOVERY_HIT_RATIO_POINTS = 0.02;
/** A recovery this much longer than the baseline's (and longer by at least two series points) is a regression in compare. */
export const RECOVERY_REGRESSION_FACTOR = 1.25;

/** Run-to-run noise from batch means needs at least this many measured intervals: from fewer, the spread is itself noise (t at 1 dof is 31.8). */
export const MIN_NOISE_BATCHES = 5;

/** One limit as a report shows it. */
export interface LimitShown {
  name: string;
  value: string;
  meaning: string;
}

/**
 * Every limit above that applies to the run, as the report's "Limits behind the verdict" table lists
 * them; the generator's are the values the run was judged by (the profile's `generator:` section).
 */
export function limitsShown(realTarget: boolean, g: GeneratorLimits = GENERATOR_LIMITS, timeline = false): LimitShown[] {
  const set = (value: string, key: keyof GeneratorLimits, shown: (v: number) => string) =>
    g[key] === GENERATOR_LIMITS[key] ? value : `${value} (profile; default ${shown(GENERATOR_LIMITS[key])})`;
  const generator: LimitShown[] = [
    { name: 'generator event-loop lag p99', value: set(formatUs(g.eventLoopLagP99), 'eventLoopLagP99', formatUs), meaning: 'above it the generator is saturated (INVALID)' },
    { name: 'generator CPU', value: set(formatCpu(g.cpu), 'cpu', formatCpu), meaning: 'above it the generator is saturated (INVALID)' },
    { name: 'dispatch lateness p99', value: set(formatUs(g.dispatchLatenessP99), 'dispatchLatenessP99', formatUs), meaning: 'above it the schedule slipped (INVALID)' },
    {
      name: 'send lateness p99 with connection waits',
      value: set(formatUs(g.connectionWaitLatenessP99), 'connectionWaitLatenessP99', formatUs),
      meaning: 'above it, with the generator healthy, the target saturated at the test’s concurrency (reported; judged on the SLO)',
    },
  ];
  return [
    ...(realTarget ? generator : []),
    { name: 'achieved / asked rate', value: `${ACHIEVED_FRACTION * 100}%`, meaning: 'below it (beyond Poisson noise) the generator fell short (INVALID)' },
    { name: 'dropped sends', value: `${DROPPED_INVALID_SHARE * 100}% of scheduled`, meaning: 'above it the run is INVALID; any drop warns' },
    { name: 'samples beyond a quoted percentile', value: `${MIN_TAIL_SAMPLES} / ${STABLE_TAIL_SAMPLES}`, meaning: 'fewer than the first: INVALID; than the second: warning' },
    { name: 'near-perfect hit ratio', value: `${SUSPICIOUS_HIT_RATIO * 100}%`, meaning: 'at or above it, with no production figure: info' },
    { name: 'hit ratio vs production', value: `±${HIT_RATIO_TOLERANCE * 100} points`, meaning: 'further off: warning' },
    { name: 'fast errors', value: `≥ ${FAST_ERRORS.share * 100}% of completions, ${FAST_ERRORS.speedup}× faster`, meaning: 'warning: errors pull percentiles down' },
    { name: 'production factor', value: `${PRODUCTION_FACTOR}×`, meaning: 'test figures further than this from production warn' },
    { name: 'steady-state run length', value: formatUs(MIN_STEADY_RUN_US), meaning: 'shorter measured runs warn' },
    ...(timeline ? recoveryLimits() : []),
  ];
}

function recoveryLimits(): LimitShown[] {
  return [
    { name: 'recovered after an event', value: `${RECOVERY_HOLD_POINTS} intervals in a row inside`, meaning: 'p99, error rate and hit ratio all inside the limits below' },
    { name: 'recovery p99 without a p99 SLO', value: `${RECOVERY_BASELINE_P99_FACTOR}× the median p99 before the first event`, meaning: 'above it an interval is outside' },
    { name: 'recovery error rate without an error-rate SLO', value: `${RECOVERY_DEFAULT_ERROR_RATE * 100}%`, meaning: 'above it an interval is outside' },
    { name: 'recovery hit ratio', value: `${RECOVERY_HIT_RATIO_POINTS * 100} points below its mean before the first event`, meaning: 'further below, an interval is outside' },
    {
      name: 'recovery regression (compare)',
      value: `${RECOVERY_REGRESSION_FACTOR}× the baseline's and 2 intervals longer`,
      meaning: 'or not recovering when the baseline did: regressed',
    },
  ];
}

/** A CPU limit as a share of one core: 0.9 → "90% of a core". */
export function formatCpu(cores: number): string {
  return `${Math.round(cores * 1000) / 10}% of a core`;
}

/**
 * A k6 script asking more than this many requests a second of one generator (no execution segment)
 * stands one host in for many clients; k6's own guidance puts a single instance's ceiling not far above.
 */
export const SINGLE_GENERATOR_RPS = 20_000;
