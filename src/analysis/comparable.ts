import type { RealismFlag } from './realism/types.ts';

/**
 * Why a run's or a qualification's figures are no evidence of a change, either way: cut short (its
 * figures are partial), or INVALID (the realism flags that invalidated it: a late generator, a
 * closed loop, too few samples). Empty when the figures can be compared. Pure.
 */
export function notComparableReasons(input: { verdict: string; interrupted: boolean; flags: readonly RealismFlag[]; interruption?: string | undefined }): string[] {
  const reasons: string[] = [];
  if (input.interrupted) reasons.push(input.interruption ?? 'interrupted: its figures are partial');
  if (input.verdict === 'INVALID') reasons.push(...input.flags.filter((f) => f.severity === 'invalid').map((f) => `${f.title} (${f.evidence})`));
  if (reasons.length === 0 && input.verdict === 'INVALID') reasons.push('its verdict is INVALID');
  return reasons;
}
