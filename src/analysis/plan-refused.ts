import type { PlanLimits } from '../profile/schema.ts';

/*
 * What a refused plan is, apart from how it is figured (plan-check.ts): the CLI maps the error to
 * exit 2 without loading the schedule and the estimates behind it.
 */
export interface PlanFigures {
  /** How many runs the figures cover (steps of a qualification, points of a sweep). */
  runs: number;
  /** Requests of the largest run (warm-up included). */
  requests: number;
  /** Keys one request may carry: the batch distributions' upper bound. */
  keysPerRequest: number;
  /** Intervals of the largest run. */
  intervals: number;
  /** All runs, warm-ups included. */
  durationS: number;
  /** Estimated peak memory of one run (of `concurrent` runs at once for a sweep), MB. */
  memoryMb: number;
  files: { latencyLogMb: number; intervalsMb: number; resultMb: number };
}

export interface PlanRefusal {
  limit: keyof PlanLimits;
  figure: number;
  max: number;
  /** "1,000,000,000 requests > limits.maxRequests 100,000,000". */
  text: string;
}

/** A plan over its limits: bad input (exit 2), refused before any traffic. */
export class PlanRefusedError extends Error {
  override readonly name = 'PlanRefusedError';
  constructor(
    readonly figures: PlanFigures,
    readonly refusals: PlanRefusal[],
  ) {
    super(
      `plan refused: ${refusals.map((r) => r.text).join('; ')}. Override: --force, or raise ${refusals.map((r) => `limits.${r.limit}`).join(', ')} in the profile (limits: section)`,
    );
  }
}
