import { productionFromSample, withProduction } from '../analysis/realism/production-sample.ts';
import { InputFileError, MiB, readInputText } from '../files/input-file.ts';
import { loadProfile } from '../profile/load.ts';
import { parseTarget, protocolOf, targetHosts, type TargetSpec } from '../profile/protocols/registry.ts';
import { canonicalHost, isLoopbackHost, TargetError } from '../profile/target.ts';
import { resolveSecrets } from '../profile/secrets.ts';
import { requireMemcachedKeysFor } from '../profile/memcached-keys.ts';
import { requireTopologyFor } from '../profile/topology-required.ts';
import type { Profile } from '../profile/types.ts';
import { parseDurationUs } from '../profile/units.ts';
import type { CommandLineError } from './errors.ts';
import { optionError } from './options.ts';

/* Reading command-line values that yargs cannot check: durations, targets, a production sample. */

export function commandLineError(option: string, message: string, hint: string): CommandLineError {
  return optionError(option, message, hint);
}

/** A duration option: "10s", "500ms", or a bare number of seconds (as in profiles). */
export function durationOption(option: string, text: string, allowZero = false): number {
  const us = /^\d+(\.\d+)?$/.test(text.trim()) ? parseDurationUs(Number(text)) : parseDurationUs(text);
  if (us === undefined || (us === 0 && !allowZero))
    throw commandLineError(option, `expected a duration${allowZero ? '' : ' > 0'}, got ${JSON.stringify(text)}`, `e.g. ${option} 10s`);
  return us;
}

/** `--target`, parsed once before anything starts: every stage after takes the parsed target. */
export function targetOption(text: string | undefined): TargetSpec | undefined {
  if (text === undefined) return undefined;
  try {
    return parseTarget(text);
  } catch (error) {
    if (error instanceof TargetError)
      throw commandLineError('--target', error.message, 'e.g. --target http://127.0.0.1:8080, --target memcached://127.0.0.1:11211 or --target redis://127.0.0.1:6379');
    throw error;
  }
}

/**
 * Traffic goes to loopback unless the user names the remote host: a typo in a target or a profile
 * borrowed from a colleague must not load someone else's server. Returns the remote hosts that were
 * allowed (to be announced before the first request). @throws CommandLineError naming the host
 */
export function guardTarget(target: TargetSpec, allowed: readonly string[], from: string): string[] {
  const allowedHosts = new Set(allowed.map(canonicalHost));
  const remote = targetHosts(target).filter((host) => !isLoopbackHost(host));
  const refused = remote.filter((host) => !allowedHosts.has(canonicalHost(host)));
  if (refused.length > 0) {
    const hosts = refused.join(',');
    throw commandLineError(
      from,
      `${hosts} is not a loopback host; stampede sends traffic only to 127.0.0.0/8, ::1 and localhost unless told otherwise`,
      `to load it on purpose: --allow-remote ${hosts}, or STAMPEDE_ALLOW_REMOTE=${hosts}`,
    );
  }
  return remote;
}

/** Where a run's traffic goes and who chose it: `--target`, else the profile's `target:` (valid: the profile's schema checked it). */
export function effectiveTarget(option: TargetSpec | undefined, profile: Profile): { target: TargetSpec; from: string } {
  return option === undefined ? { target: parseTarget(profile.target), from: `${profile.source.file}: target` } : { target: option, from: '--target' };
}

/**
 * Whether the profile can run on `target` at all, before any folder, live view or traffic: the model
 * needs a topology, an http target every `${NAME}` of its templates set in the environment, an
 * https:// one TLS files node:tls will take, and a memcached target keys it can store.
 * @throws ProfileError naming the file, the field (and the variable, the file or the key's line)
 */
export async function checkRunnable(profile: Profile, target: TargetSpec): Promise<void> {
  requireTopologyFor(profile, target);
  requireMemcachedKeysFor(profile, target);
  if (protocolOf(target).resolvesSecrets) resolveSecrets(profile, process.env);
  await (await import('../driver/index.ts')).checkDriverInput(target, profile);
}

/** The line printed before the first request to a remote host. */
export function remoteNotice(hosts: readonly string[]): string {
  return `stampede: sending traffic to remote host${hosts.length === 1 ? '' : 's'} ${hosts.join(', ')} (allowed by --allow-remote / STAMPEDE_ALLOW_REMOTE)\n`;
}

/** The profile with its --set overrides and, when a sample is given, `production:` figures derived from it. */
export async function loadProfileWithSample(file: string, set: string[], sample: string | undefined): Promise<Profile> {
  return withProductionSample(await loadProfile(file, set), sample);
}

/** A sample of production requests, read whole: a few million rows. */
const PRODUCTION_SAMPLE = { what: 'a production sample', maxBytes: 256 * MiB };

/** The profile with `production:` figures derived from a CSV sample of production requests (when one is given). */
export function withProductionSample(profile: Profile, sample: string | undefined): Profile {
  if (sample === undefined) return profile;
  let text: string;
  try {
    text = readInputText(sample, PRODUCTION_SAMPLE);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    throw commandLineError('--production-sample', `cannot read ${sample}: ${error.reason}`, 'a CSV with a header: key, batch, value, time (any of them)');
  }
  return withProduction(profile, productionFromSample(text));
}
