import { KNEE_FACTOR } from './limits.ts';
import { formatUs } from '../analysis/format.ts';
import type { CapacityAnalysis, Knee, Limit, StepOutcome } from './qualification.ts';

/** The steps a qualification judges: every one that ran to its end (a step cut short by a signal is not evidence). */
export function completeSteps(steps: readonly StepOutcome[]): StepOutcome[] {
  return steps.filter((s) => s.interrupted !== true);
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
  const analysis: CapacityAnalysis = {
    capacityRps,
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

export function findKnee(steps: readonly StepOutcome[]): Knee | undefined {
  const sorted = completeSteps(steps)
    .filter((s) => s.requests > 0)
    .sort((a, b) => a.askedRps - b.askedRps);
  const base = sorted[0]?.latencyUs.p99;
  if (base === undefined) return undefined;
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.latencyUs.p99 > KNEE_FACTOR * Math.max(base, 1)) {
      const before = sorted[i - 1]!;
      return { rps: before.askedRps, p99Us: before.latencyUs.p99, turnedAtRps: sorted[i]!.askedRps };
    }
  }
  return undefined;
}

/** The lowest step where the generator fell short, else the lowest failing step (the target's limit). */
export function findLimit(steps: readonly StepOutcome[]): Limit | undefined {
  const sorted = completeSteps(steps).sort((a, b) => a.askedRps - b.askedRps);
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

/** The highest passing rate below the lowest failing one, and that failing rate (complete steps only). */
export function bracket(all: readonly StepOutcome[]): { pass?: number; fail?: number } {
  const steps = completeSteps(all);
  let fail: number | undefined;
  for (const s of steps) if (!s.pass && (fail === undefined || s.askedRps < fail)) fail = s.askedRps;
  let pass: number | undefined;
  for (const s of steps) if (s.pass && (fail === undefined || s.askedRps < fail) && (pass === undefined || s.askedRps > pass)) pass = s.askedRps;
  return { ...(pass !== undefined && { pass }), ...(fail !== undefined && { fail }) };
}
