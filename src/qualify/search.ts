import { roundSignificant } from '../profile/units.ts';
import { bracketOf, judgeRates } from '../analysis/capacity.ts';
import type { RateJudgement, StepOutcome, StepPurpose } from '../analysis/qualification.ts';

/** How the offered rate is stepped: grow geometrically until the SLO breaks, bisect the bracket, repeat its two rates. */
export interface SearchOptions {
  startRps: number;
  /** Factor between steps before the SLO first breaks (and, going down, when even the first step fails). */
  growth: number;
  /** Bisect until the passing and failing rates are within this fraction of each other. */
  resolution: number;
  maxSteps: number;
  /** Give up going down below this rate. */
  minRps: number;
  /** Steps run at each of the two rates that decide the capacity (the final pass and the target's fail). */
  repeats: number;
}

/** The next step of the search, or why it is done. */
export type SearchMove = { rps: number; purpose: StepPurpose; rerunOf?: number } | { stop: string };

const rps = (x: number) => `${x} rps`;

/**
 * The next step after `steps`. Pure. In order: re-run a failing step spoiled by one interval; grow
 * from the highest pass while nothing failed; go down while nothing passed; bisect the bracket
 * (highest pass, lowest rate that did not pass) down to the resolution; then repeat the bracket's
 * pass and its target fail until each has `repeats` counted steps. A rate the generator limited is a
 * ceiling, not an end: the search bisects below it. A repeat that moves the bracket resumes the bisection.
 */
export function nextStep(steps: readonly StepOutcome[], options: SearchOptions): SearchMove {
  const rates = judgeRates(steps);
  if (rates.length === 0) {
    // A step cut short is no evidence: with none complete, the search starts again.
    return steps.length >= options.maxSteps ? { stop: maxStepsReason(options) } : { rps: roundSignificant(options.startRps, 3), purpose: 'start' };
  }
  if (steps.length >= options.maxSteps) return { stop: maxStepsReason(options) };
  const spoiled = rates.find((r) => r.awaitingRerun !== undefined);
  if (spoiled) return { rps: spoiled.rps, purpose: 'rerun', rerunOf: spoiled.awaitingRerun! };
  const { pass, fail, failedBy } = bracketOf(rates);
  if (fail === undefined) return { rps: roundSignificant(pass! * options.growth, 3), purpose: 'grow' };
  if (pass === undefined) {
    const down = roundSignificant(fail / options.growth ** 2, 3);
    if (down < options.minRps)
      return { stop: `every rate from ${rps(fail)} up failed, and the next one down (${rps(down)}) is below the lowest searched (${rps(options.minRps)})` };
    return { rps: down, purpose: 'down' };
  }
  const mid = roundSignificant((pass + fail) / 2, 3);
  if (fail / pass - 1 > options.resolution && mid > pass && mid < fail) return { rps: mid, purpose: 'bisect' };
  const short = [pass, ...(failedBy === 'target' ? [fail] : [])].find((r) => repeatsOf(rates, r) < options.repeats);
  if (short !== undefined) return { rps: short, purpose: 'repeat' };
  const by = failedBy === 'generator' ? ' (the generator limited the fail: the target was not measured above it)' : '';
  return { stop: `the bracket ${pass}–${rps(fail)} is within the resolution (${options.resolution * 100}%) and its rates ran ${options.repeats}× each${by}` };
}

function repeatsOf(rates: readonly RateJudgement[], rate: number): number {
  return rates.find((r) => r.rps === rate)?.steps.length ?? 0;
}

function maxStepsReason(options: SearchOptions): string {
  return `the search used its ${options.maxSteps} steps (--max-steps) before it was done`;
}
