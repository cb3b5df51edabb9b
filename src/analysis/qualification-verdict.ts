import { formatUs } from '../analysis/format.ts';
import type { RealismFlag } from './realism/types.ts';
import type { CapacityAnalysis, QualificationVerdict } from './qualification.ts';

const rps = (x: number) => `${Math.round(x)} rps`;
const pct = (x: number) => `${x >= 0 ? '+' : ''}${Math.round(x * 100)}%`;

/** How far an interrupted qualification got: its complete steps and the one cut short, if any. */
export interface QualificationInterruption {
  completeSteps: number;
  cutStepRps?: number | undefined;
}

/**
 * INVALID when the qualification was interrupted (the search did not finish, so its capacity is
 * only a lower bound) or a flag says the measurement cannot carry a verdict; otherwise PASS when capacity
 * covers the failover (N+1) load, or the expected peak when no failover figure exists; else FAIL.
 */
export function qualificationVerdict(
  analysis: CapacityAnalysis,
  flags: readonly RealismFlag[],
  interruption?: QualificationInterruption,
): { verdict: QualificationVerdict; reasons: string[] } {
  const invalid = flags.filter((f) => f.severity === 'invalid');
  const reasons: string[] = [];
  if (interruption) reasons.push(interruptionReason(interruption));
  reasons.push(...invalid.map((f) => `${f.title} (${f.evidence})`));
  const { capacityRps, expectedPeakRps, failover } = analysis;
  const capacity = capacityRps > 0 ? `capacity ${rps(capacityRps)}${spreadText(analysis)}` : 'no step held the SLO';
  reasons.push(`${capacity} vs expected peak ${rps(expectedPeakRps)}: headroom ${pct(analysis.headroom)}`);
  if (failover) {
    reasons.push(`failover (N+1, ${failover.dataCentres} DCs): needs ${rps(failover.demandRps)}, headroom ${pct(failover.headroom)}: ${failover.pass ? 'PASS' : 'FAIL'}`);
  }
  if (analysis.knee) reasons.push(`latency turns up after ${rps(analysis.knee.rps)} (p99 ${formatUs(analysis.knee.p99Us)})`);
  if (analysis.limit) reasons.push(`limit: the ${analysis.limit.by} at ${rps(analysis.limit.rps)} (${analysis.limit.detail})`);
  else reasons.push('no step broke the SLO: capacity is at least the highest rate tried');
  if (interruption || invalid.length > 0) return { verdict: 'INVALID', reasons };
  const holds = failover ? failover.pass : capacityRps >= expectedPeakRps && capacityRps > 0;
  return { verdict: holds ? 'PASS' : 'FAIL', reasons };
}

/** The capacity's spread over the repeats, when more than one series was run: " (2 repeats: 2960–3110 rps, spread 5%)". */
function spreadText({ spread }: CapacityAnalysis): string {
  if (!spread || spread.series < 2) return '';
  return ` (${spread.series} repeats: ${Math.round(spread.lowRps)}–${rps(spread.highRps)}, spread ${Math.round(spread.share * 100)}%)`;
}

function interruptionReason({ completeSteps, cutStepRps }: QualificationInterruption): string {
  const cut = cutStepRps === undefined ? '' : `; the step at ${rps(cutStepRps)} was cut short and is not judged`;
  return `interrupted after ${completeSteps} complete step${completeSteps === 1 ? '' : 's'}${cut}: the search did not finish, so the figures below come from the complete steps only and a qualification cut short cannot pass`;
}
