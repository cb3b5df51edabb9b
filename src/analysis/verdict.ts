import type { ModelDivergence } from '../recorder/driver-report.ts';
import { formatCount, formatShare, formatUs, formatUsAgainst } from './format.ts';
import type { RealismFlag } from './realism/types.ts';
import type { SloVerdict } from './slo.ts';

/**
 * PASS/FAIL come from the SLO; an `invalid` flag overrides both: the measurement cannot carry a
 * verdict. DIVERGED (model runs) overrides everything: the modelled system's state grew without
 * bound and the run was stopped — the system did not hold this load, whatever the part measured says.
 */
export type Verdict = 'PASS' | 'FAIL' | 'INVALID' | 'NO SLO' | 'DIVERGED';

/**
 * The run's verdict. An interrupted run cannot PASS (the part not measured might have failed), but
 * a failure it measured before the interruption stands.
 */
export function runVerdict(slo: SloVerdict, flags: readonly RealismFlag[], interrupted = false, diverged: ModelDivergence | null = null): Verdict {
  if (diverged !== null) return 'DIVERGED';
  if (flags.some((f) => f.severity === 'invalid')) return 'INVALID';
  if (slo.checks.length === 0) return interrupted ? 'INVALID' : 'NO SLO';
  if (!slo.pass) return 'FAIL';
  return interrupted ? 'INVALID' : 'PASS';
}

/** Why the verdict is what it is: the invalid flags, the failed SLO checks, the interruption, one line each. */
export function verdictReasons(verdict: Verdict, slo: SloVerdict, flags: readonly RealismFlag[], interrupted: boolean, diverged: ModelDivergence | null = null): string[] {
  const reasons = diverged === null ? [] : [divergedReason(diverged)];
  reasons.push(...flags.filter((f) => f.severity === 'invalid').map((f) => `${f.title} (${f.evidence})`));
  for (const c of slo.checks.filter((c) => !c.pass)) {
    // No figure to compare: "measured 0us > 50ms" would read as a fast run.
    if (c.unmeasured) {
      reasons.push(`${c.name}: not measured (${c.note}), so it cannot pass`);
      continue;
    }
    const measured = c.unit === 'us' ? `${formatUsAgainst(c.actual, c.limit)} > ${formatUsAgainst(c.limit, c.actual)}` : `${formatShare(c.actual)} > ${formatShare(c.limit)}`;
    reasons.push(`${c.name}: measured ${measured}${c.note ? ` (${c.note})` : ''}`);
  }
  if (interrupted) reasons.push('interrupted: partial results (a run cut short cannot pass)');
  if (verdict === 'PASS') reasons.push(`every SLO check held (${slo.checks.map((c) => c.name).join(', ')})`);
  if (verdict === 'NO SLO') reasons.push('the profile has no SLO: nothing to judge');
  return reasons;
}

/** "the modelled system diverged at t = …": the one line that says why a model run stopped early. */
export function divergedReason(d: ModelDivergence): string {
  return `the modelled system diverged at t = ${formatUs(d.atUs)}: ${formatCount(d.state)} pending events, calls and operations passed limits.maxModelState (${formatCount(d.limit)}) — its queues grow without bound at this load; the run stopped there, results up to then are kept`;
}
