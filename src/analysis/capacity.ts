import { KNEE_FACTOR } from './limits.ts';
import { formatUs } from '../analysis/format.ts';
import type { CapacityAnalysis, CapacitySpread, Knee, Limit, RateJudgement, StepOutcome } from './qualification.ts';

/** The steps a qualification judges: every one that ran to its end (a step cut short by a signal is not evidence). */
export function completeSteps(steps: readonly StepOutcome[]): StepOutcome[] {
  return steps.filter((s) => s.interrupted !== true);
}

/**
 * Each rate tried, judged by all its complete steps (its repeats):
 * - a failing step spoiled by one interval (`spoiledBy`) is re-run once; when that re-run passes,
 *   the spoiled step is set aside; when it fails too, both count (the failure repeated, so it is
 *   the target's). A spoiled step not yet re-run counts as the failure it is;
 * - a step the generator limited says nothing about the target at that rate, so it is re-run once
 *   too, and set aside when its re-run kept the generator healthy (that re-run's verdict counts);
 *   a rate the generator limited again is a ceiling of the search, neither a pass nor the target's
 *   failure;
 * - otherwise the rate passes only when every step that counts passed.
 * A re-run is never re-run. Sorted by rate. Pure.
 */
export function judgeRates(steps: readonly StepOutcome[]): RateJudgement[] {
  const byRate = new Map<number, number[]>();
  steps.forEach((s, i) => {
    if (s.interrupted) return;
    byRate.set(s.askedRps, [...(byRate.get(s.askedRps) ?? []), i + 1]);
  });
  return [...byRate.entries()].sort((a, b) => a[0] - b[0]).map(([rps, numbers]) => judgeRate(rps, numbers, steps));
}

function judgeRate(rps: number, numbers: number[], steps: readonly StepOutcome[]): RateJudgement {
  const at = (n: number) => steps[n - 1]!;
  const rerunOf = (n: number) => numbers.find((m) => at(m).rerunOf === n);
  const doubtful = numbers.filter((n) => needsRerun(at(n)));
  const setAside = doubtful.filter((n) => {
    const rerun = rerunOf(n);
    return rerun !== undefined && !at(rerun).generatorLimited && (at(n).generatorLimited || at(rerun).pass);
  });
  const counted = numbers.filter((n) => !setAside.includes(n));
  const generatorLimited = counted.some((n) => at(n).generatorLimited);
  const awaitingRerun = doubtful.find((n) => rerunOf(n) === undefined);
  return {
    rps,
    steps: counted,
    ...(setAside.length > 0 && { setAside }),
    ...(awaitingRerun !== undefined && { awaitingRerun }),
    pass: !generatorLimited && counted.every((n) => at(n).pass),
    generatorLimited,
  };
}

/** A step whose verdict one re-run may overturn: the generator limited it, or its failure sat in one interval. */
function needsRerun(s: StepOutcome): boolean {
  return s.rerunOf === undefined && (s.generatorLimited || (s.spoiledBy !== undefined && !s.pass));
}

/**
 * The capacity's bracket: the lowest rate that did not pass (`fail`; `failedBy` the generator when
 * the generator limited it, which bounds the search but says nothing of the target) and the highest
 * rate below it that passed every repeat (`pass`). Complete steps only.
 */
export function bracket(all: readonly StepOutcome[]): { pass?: number; fail?: number; failedBy?: 'target' | 'generator' } {
  return bracketOf(judgeRates(all));
}

export function bracketOf(rates: readonly RateJudgement[]): { pass?: number; fail?: number; failedBy?: 'target' | 'generator' } {
  const failing = rates.find((r) => !r.pass);
  const pass = rates.filter((r) => r.pass && (failing === undefined || r.rps < failing.rps)).at(-1)?.rps;
  return {
    ...(pass !== undefined && { pass }),
    ...(failing && { fail: failing.rps, failedBy: failing.generatorLimited ? ('generator' as const) : ('target' as const) }),
  };
}

/**
 * The capacity each repeat series implies, lowest and highest. Series k takes, at every rate, the
 * k-th step that counts (a rate run fewer times gives its last), and its capacity is the highest
 * rate it passed below the lowest it failed; k runs to the most repeats of the bracket's two rates.
 * The lowest series is the capacity itself (a rate passes only when all its repeats pass); the
 * highest says how far one lucky series would have put it. Undefined with no step.
 */
export function capacitySpread(steps: readonly StepOutcome[]): CapacitySpread | undefined {
  const rates = judgeRates(steps);
  if (rates.length === 0) return undefined;
  const { pass, fail } = bracketOf(rates);
  const deciding = rates.filter((r) => r.rps === pass || r.rps === fail);
  const series = Math.max(1, ...deciding.map((r) => r.steps.length));
  const capacities = Array.from({ length: series }, (_, k) => {
    const seriesRates = rates.map((r) => {
      const s = steps[r.steps[Math.min(k, r.steps.length - 1)]! - 1]!;
      return { ...r, steps: [], pass: s.pass && !s.generatorLimited, generatorLimited: s.generatorLimited };
    });
    return bracketOf(seriesRates).pass ?? 0;
  });
  const lowRps = Math.min(...capacities);
  const highRps = Math.max(...capacities);
  return { series, lowRps, highRps, share: lowRps > 0 ? highRps / lowRps - 1 : 0 };
}

/**
 * Rates that passed every repeat above a rate that failed the target (not the generator): the
 * capacity is not monotonic in the rate, so one of the two measured noise. Each pair once, the
 * lowest failing rate first.
 */
export function passesAboveFails(steps: readonly StepOutcome[]): { failRps: number; passRps: number }[] {
  const rates = judgeRates(steps);
  const fails = rates.filter((r) => !r.pass && !r.generatorLimited);
  const lowest = fails[0];
  if (!lowest) return [];
  return rates.filter((r) => r.pass && r.rps > lowest.rps).map((r) => ({ failRps: lowest.rps, passRps: r.rps }));
}

/**
 * Capacity, knee, limit and headroom from the measured steps (the complete ones only). Pure. `dataCentres` ≥ 2 adds the
 * failover (N+1) check: when one of N data centres fails, its traffic spreads over the other N − 1,
 * so each must carry peak × N / (N − 1).
 */
export function analyseCapacity(steps: readonly StepOutcome[], expectedPeakRps: number, dataCentres?: number): CapacityAnalysis {
  const capacityRps = bracket(steps).pass ?? 0;
  const knee = findKnee(steps);
  const limit = findLimit(steps);
  const spread = capacitySpread(steps);
  const analysis: CapacityAnalysis = {
    capacityRps,
    ...(spread && { spread }),
    ...(knee && { knee }),
    ...(limit && { limit }),
    expectedPeakRps,
    headroom: expectedPeakRps > 0 ? capacityRps / expectedPeakRps - 1 : 0,
  };
  if (dataCentres !== undefined && dataCentres >= 2) {
    const demandRps = (expectedPeakRps * dataCentres) / (dataCentres - 1);
    analysis.failover = { dataCentres, demandRps, headroom: capacityRps / demandRps - 1, pass: capacityRps >= demandRps };
  }
  return analysis;
}

/** The steps that count as evidence: complete, and not set aside as spoiled by one interval. */
export function countedSteps(steps: readonly StepOutcome[]): StepOutcome[] {
  return judgeRates(steps).flatMap((r) => r.steps.map((n) => steps[n - 1]!));
}

/**
 * The last rate before p99 passes KNEE_FACTOR × the lightest rate's. A rate's p99 is the worst of
 * its counted steps: a repeat at the same rate is not a rate "before" it.
 */
export function findKnee(steps: readonly StepOutcome[]): Knee | undefined {
  const rates = judgeRates(steps)
    .map((r) => r.steps.map((n) => steps[n - 1]!).filter((s) => s.requests > 0))
    .filter((at) => at.length > 0)
    .map((at) => at.reduce((worst, s) => (s.latencyUs.p99 > worst.latencyUs.p99 ? s : worst)));
  const base = rates[0]?.latencyUs.p99;
  if (base === undefined) return undefined;
  for (let i = 1; i < rates.length; i++) {
    if (rates[i]!.latencyUs.p99 > KNEE_FACTOR * Math.max(base, 1)) {
      const before = rates[i - 1]!;
      return { rps: before.askedRps, p99Us: before.latencyUs.p99, turnedAtRps: rates[i]!.askedRps };
    }
  }
  return undefined;
}

/** The lowest step where the generator fell short, else the lowest failing step (the target's limit). */
export function findLimit(steps: readonly StepOutcome[]): Limit | undefined {
  const sorted = countedSteps(steps).sort((a, b) => a.askedRps - b.askedRps);
  const generator = sorted.find((s) => s.generatorLimited);
  const target = sorted.find((s) => !s.pass);
  if (generator && (!target || generator.askedRps <= target.askedRps)) {
    const detail = generator.generatorReasons?.join('; ') ?? `achieved ${Math.round(generator.achievedRps)} of ${generator.askedRps} rps asked`;
    return { by: 'generator', rps: generator.askedRps, detail };
  }
  if (!target) return undefined;
  const checks = target.failedChecks.length > 0 ? target.failedChecks.join('; ') : `p99 ${formatUs(target.latencyUs.p99)}`;
  const detail = target.targetSaturation ? `${checks}; ${target.targetSaturation}` : checks;
  return { by: 'target', rps: target.askedRps, detail };
}
