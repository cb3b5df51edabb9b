import { formatUs } from '../analysis/format.ts';
import type { RealismFlag } from './realism/types.ts';
import type { CapacityAnalysis, QualificationVerdict } from './qualification.ts';

const rps = (x: number) => `${Math.round(x)} rps`;
const pct = (x: number) => `${x >= 0 ? '+' : ''}${Math.round(x * 100)}%`;

/**
 * INVALID when a flag says the measurement cannot carry a verdict; otherwise PASS when capacity
 * covers the failover (N+1) load, or the expected peak when no failover figure exists; else FAIL.
 */
export function qualificationVerdict(analysis: CapacityAnalysis, flags: readonly RealismFlag[]): { verdict: QualificationVerdict; reasons: string[] } {
  const invalid = flags.filter((f) => f.severity === 'invalid');
  const reasons: string[] = invalid.map((f) => `${f.title} (${f.evidence})`);
  const { capacityRps, expectedPeakRps, failover } = analysis;
  const capacity = capacityRps > 0 ? `capacity ${rps(capacityRps)}` : 'no step held the SLO';
  reasons.push(`${capacity} vs expected peak ${rps(expectedPeakRps)}: headroom ${pct(analysis.headroom)}`);
  if (failover) {
    reasons.push(`failover (N+1, ${failover.dataCentres} DCs): needs ${rps(failover.demandRps)}, headroom ${pct(failover.headroom)}: ${failover.pass ? 'PASS' : 'FAIL'}`);
  }
  if (analysis.knee) reasons.push(`latency turns up after ${rps(analysis.knee.rps)} (p99 ${formatUs(analysis.knee.p99Us)})`);
  if (analysis.limit) reasons.push(`limit: the ${analysis.limit.by} at ${rps(analysis.limit.rps)} (${analysis.limit.detail})`);
  else reasons.push('no step broke the SLO: capacity is at least the highest rate tried');
  if (invalid.length > 0) return { verdict: 'INVALID', reasons };
  const holds = failover ? failover.pass : capacityRps >= expectedPeakRps && capacityRps > 0;
  return { verdict: holds ? 'PASS' : 'FAIL', reasons };
}
