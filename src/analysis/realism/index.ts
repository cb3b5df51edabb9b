import { PROFILE_RULES } from './profile-flags.ts';
import { RESULT_RULES } from './result-flags.ts';
import { SEVERITY_ORDER, type RealismFlag, type RealismInput } from './types.ts';

export type { RealismFlag, RealismInput, Severity } from './types.ts';

/**
 * Every way the test departs from reality that the input can show, most severe first. Pure: the
 * same profile, plan and result give the same flags. Without a result (lint) only flags knowable
 * before a run are raised.
 */
export function realismFlags(input: RealismInput): RealismFlag[] {
  // Array sort is stable: within a severity, flags keep the rules' order.
  return [...RESULT_RULES, ...PROFILE_RULES].flatMap((rule) => rule(input)).sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}
