import { readFileSync } from 'node:fs';
import { formatPath, type PathSegment, ProfileError } from '../profile/issues.ts';
import type { Profile } from '../profile/types.ts';
import { locate, parseYamlSource } from '../profile/yaml-source.ts';

/** A profile the Job cannot carry as it is: bad input (exit 2), naming the profile file, the line and the field. */
export function profileIssue(profile: Profile, path: readonly PathSegment[], message: string, hint: string): ProfileError {
  const file = profile.source.file;
  const { source } = parseYamlSource(readFileSync(file, 'utf8'), file);
  return new ProfileError(file, [{ file, ...locate(source, path), path: formatPath(path), message, hint }]);
}
