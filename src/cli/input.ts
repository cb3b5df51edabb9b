import { readFileSync } from 'node:fs';
import { loadProfile } from '../profile/load.ts';
import { ProfileError } from '../profile/issues.ts';
import { parseTarget, TargetError } from '../profile/target.ts';
import type { Profile } from '../profile/types.ts';
import { parseDurationUs } from '../profile/units.ts';
import { productionFromSample, withProduction } from '../analysis/realism/production-sample.ts';

/* Reading command-line values that yargs cannot check: durations, targets, a production sample. */

export function commandLineError(option: string, message: string, hint: string): ProfileError {
  return new ProfileError('<command line>', [{ file: '<command line>', line: 0, column: 0, path: option, message, hint }]);
}

/** A duration option: "10s", "500ms", or a bare number of seconds (as in profiles). */
export function durationOption(option: string, text: string, allowZero = false): number {
  const us = /^\d+(\.\d+)?$/.test(text.trim()) ? parseDurationUs(Number(text)) : parseDurationUs(text);
  if (us === undefined || (us === 0 && !allowZero)) throw commandLineError(option, `expected a duration, got "${text}"`, `e.g. ${option} 10s`);
  return us;
}

/** `--target`, checked by the one target parser before anything starts (the pipeline takes the text). */
export function targetOption(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    return parseTarget(text).text;
  } catch (error) {
    if (error instanceof TargetError) throw commandLineError('--target', error.message, 'e.g. --target http://127.0.0.1:8080 or --target memcached://127.0.0.1:11211');
    throw error;
  }
}

/** The profile with its --set overrides and, when a sample is given, `production:` figures derived from it. */
export async function loadProfileWithSample(file: string, set: string[], sample: string | undefined): Promise<Profile> {
  return withProductionSample(await loadProfile(file, set), sample);
}

/** The profile with `production:` figures derived from a CSV sample of production requests (when one is given). */
export function withProductionSample(profile: Profile, sample: string | undefined): Profile {
  if (sample === undefined) return profile;
  let text: string;
  try {
    text = readFileSync(sample, 'utf8');
  } catch {
    throw commandLineError('--production-sample', `cannot read ${sample}`, 'a CSV with a header: key, batch, value, time (any of them)');
  }
  return withProduction(profile, productionFromSample(text));
}
