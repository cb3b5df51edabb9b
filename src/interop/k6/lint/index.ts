import { SEVERITY_ORDER, type RealismFlag } from '../../../analysis/realism/types.ts';
import { type K6Options, k6Scenarios, record } from '../k6-options.ts';
import { loadK6Script } from '../stand-in/load.ts';
import { K6_RULES } from './rules.ts';

/** The realism flags of a k6 script's options, most severe first (as for a profile). */
export function k6OptionFlags(options: K6Options): RealismFlag[] {
  const input = { options, scenarios: k6Scenarios(options) };
  return K6_RULES.flatMap((rule) => rule(input)).sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

/**
 * Reads a k6 script's `options` by running its init code in the sandbox against the stand-in k6
 * modules (no network, no host object; files under its folder or `roots`) and returns their
 * realism flags. @throws K6ScriptError (bad input, exit 2)
 */
export async function lintK6Script(file: string, env: Record<string, string> = {}, roots: string[] = []): Promise<RealismFlag[]> {
  const script = await loadK6Script(file, env, roots);
  script.dispose();
  // Plain data already (JSON out of the sandbox); options that are not an object are none.
  return k6OptionFlags(record(script.exports.options) ?? {});
}
