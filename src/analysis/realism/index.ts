import { PROFILE_RULES } from './profile-flags.ts';
import { RESULT_RULES } from './result-flags.ts';
import { parseTarget, protocolOf } from '../../profile/protocols/registry.ts';
import { SEVERITY_ORDER, type RealismContext, type RealismFlag, type RealismInput } from './types.ts';

export type { RealismFlag, RealismInput, Severity } from './types.ts';

/**
 * Every way the test departs from reality that the input can show, most severe first. Pure: the
 * same profile, plan and result give the same flags. Without a result (lint) only flags knowable
 * before a run are raised.
 */
export function realismFlags(input: RealismInput): RealismFlag[] {
  const asRun = describesWhatRan(input);
  // Array sort is stable: within a severity, flags keep the rules' order.
  return [...RESULT_RULES, ...PROFILE_RULES].flatMap((rule) => rule(asRun)).sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

/**
 * The flags judge what ran: a run sent elsewhere than the profile's target (`--target`) is judged
 * as sent there, so a memcached:// run of a profile written for the model is not flagged for the
 * model topology's retries and pools it never used, and is flagged for its own driver's settings.
 */
function describesWhatRan(input: RealismInput): RealismContext {
  const ran = input.result?.target;
  // What ran is read from its text, as result.json keeps it: a stored run is judged again the same way.
  const target = parseTarget(ran ?? input.profile.target);
  const asRun = { ...input, target, protocol: protocolOf(target) };
  if (ran === undefined || ran === input.profile.target) return asRun;
  return { ...asRun, profile: { ...input.profile, target: ran } };
}
