import { ProfileSchema, type ProfileInput } from '../../src/profile/schema.ts';
import type { Profile } from '../../src/profile/types.ts';

/** A profile object as the loader would return it, built in memory for stage tests. */
export function makeProfile(input: Omit<ProfileInput, 'topology'> & { topology?: ProfileInput['topology'] }): Profile {
  const parsed = ProfileSchema.parse({ topology: MINIMAL_TOPOLOGY, ...input });
  return { ...parsed, topology: parsed.topology as Profile['topology'], source: { file: '<memory>', sha256: '', overrides: [] } };
}

export const MINIMAL_TOPOLOGY = {
  entry: 'api',
  services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: '1ms' } } },
};
