import { bracket } from '../analysis/capacity.ts';
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
  if (steps.length === 0) return round3(options.startRps);
  if (steps.length >= options.maxSteps) return undefined;
  if (steps.some((s) => s.generatorLimited)) return undefined;
  const { pass, fail } = bracket(steps);
  if (fail === undefined) return round3(pass! * options.growth);
  if (pass === undefined) {
    const down = round3(fail / options.growth ** 2);
    return down < options.minRps ? undefined : down;
  }
  if (fail / pass - 1 <= options.resolution) return undefined;
  const mid = round3((pass + fail) / 2);
  return mid <= pass || mid >= fail ? undefined : mid;
}

/** Rates are shown and compared at 3 significant digits: finer than any step can resolve. */
export function round3(x: number): number {
  return Number(x.toPrecision(3));
}
