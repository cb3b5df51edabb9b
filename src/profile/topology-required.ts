import type { Topology } from './topology/index.ts';
import { ProfileError } from './issues.ts';
import { protocolOf, type TargetSpec } from './protocols/registry.ts';
import type { Profile } from './types.ts';

/*
 * A profile for a real target needs no model topology; the model target does. Every command that
 * may run a profile on the model asks here first, so the missing field is named the same way
 * (exit 2) before any schedule, folder or traffic.
 */

/** The profile's topology. @throws ProfileError naming the profile file and `topology` when it has none. */
export function requireTopology(profile: Profile): Topology {
  if (profile.topology !== undefined) return profile.topology;
  const file = profile.source.file;
  throw new ProfileError(file, [
    {
      file,
      line: 0,
      column: 0,
      path: 'topology',
      message: 'missing: the target is the model, which runs the profile through a topology, and this profile has none',
      hint: 'add topology: <file> (see profiles/topologies/) or an inline topology, or send to a real target: target: http://host:port in the profile, or --target',
    },
  ]);
}

/** requireTopology when `target` (--target or the profile's) is simulated, the model; nothing for a real target. */
export function requireTopologyFor(profile: Profile, target: TargetSpec): void {
  if (protocolOf(target).simulated) requireTopology(profile);
}
