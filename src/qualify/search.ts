import { roundSignificant } from '../profile/units.ts';
import { bracket, completeSteps } from '../analysis/capacity.ts';
import type { StepOutcome } from '../analysis/qualification.ts';

/** How the offered rate is stepped: grow geometrically until the SLO breaks, then bisect the bracket. */
export interface SearchOptions {
  startRps: number;
  /** Factor between steps before the SLO first breaks (and, going down, when even the first step fails). */
  growth: number;
  /** Bisect until the passing and failing rates are within this fraction of each other. */
  resolution: number;
  maxSteps: number;
  /** Give up going down below this rate. */
  minRps: number;
}

/**
 * The next rate to try after `steps`, or undefined when the search is done. Pure. Stops early when
 * the generator limited a step: rates above it measure the generator, not the target.
 */
export function nextRate(steps: readonly StepOutcome[], options: SearchOptions): number | undefined {
  if (steps.length === 0) return roundSignificant(options.startRps, 3);
  if (steps.length >= options.maxSteps) return undefined;
  // A step cut short is no evidence: with none complete, the search starts again.
  const complete = completeSteps(steps);
  if (complete.length === 0) return roundSignificant(options.startRps, 3);
  if (complete.some((s) => s.generatorLimited)) return undefined;
  const { pass, fail } = bracket(steps);
  if (fail === undefined) return roundSignificant(pass! * options.growth, 3);
  if (pass === undefined) {
    const down = roundSignificant(fail / options.growth ** 2, 3);
    return down < options.minRps ? undefined : down;
  }
  if (fail / pass - 1 <= options.resolution) return undefined;
  const mid = roundSignificant((pass + fail) / 2, 3);
  return mid <= pass || mid >= fail ? undefined : mid;
}
