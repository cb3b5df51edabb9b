import type { GeneratorFigures } from '../recorder/driver-report.ts';
import { formatUs, formatUsAgainst } from './format.ts';
import type { GeneratorLimits } from '../profile/schema.ts';
import { GENERATOR_LIMITS, formatCpu } from './limits.ts';

/** Whether the generator, not the target, limited the run, and why — each reason with its figure and limit. */
export interface GeneratorJudgement {
  saturated: boolean;
  reasons: string[];
}

/**
 * Judged against `limits` (the profile's `generator:` section, its defaults when none is given), on
 * the generator's own measurements only: its CPU, event-loop lag and dispatch lateness (the worst
 * sending thread's, so a worker thread behind counts), and drops at its in-flight cap. Requests
 * that waited for a free connection are not among them: with the generator healthy, a full pool is
 * the target's saturation at the test's concurrency (analysis/saturation.ts), judged on the SLO.
 */
export function judgeGenerator(g: GeneratorFigures, limits: GeneratorLimits = GENERATOR_LIMITS): GeneratorJudgement {
  const reasons: string[] = [];
  const lagUs = g.eventLoopLagMs.p99 * 1000;
  if (lagUs > limits.eventLoopLagP99) reasons.push(`event-loop lag p99 ${formatUsAgainst(lagUs, limits.eventLoopLagP99)} > ${formatUs(limits.eventLoopLagP99)}`);
  if (g.cpu > limits.cpu) reasons.push(`generator CPU ${formatCpu(g.cpu)} > ${formatCpu(limits.cpu)}`);
  if (g.dispatchLatenessUs.p99 > limits.dispatchLatenessP99) {
    reasons.push(`schedule slipped: dispatch lateness p99 ${formatUsAgainst(g.dispatchLatenessUs.p99, limits.dispatchLatenessP99)} > ${formatUs(limits.dispatchLatenessP99)}`);
  }
  if (g.dropped > 0) reasons.push(`${g.dropped} requests dropped at the in-flight cap (${g.inFlightCap}): the generator could not hold the offered load`);
  return { saturated: reasons.length > 0, reasons };
}
