import { TargetError } from '../../../profile/target.ts';
import type { Profile } from '../../../profile/types.ts';

/**
 * The base URL the exported script aims at: `--target` or the profile's own, when it is HTTP. k6
 * core has no memcached client (xk6 extensions exist, but @types/k6 does not type them, and the
 * script would no longer run on a stock k6), so a memcached profile is refused, not half-exported.
 * @throws TargetError (exit 2)
 */
export function baseUrlOf(profile: Profile, override: string | undefined): string {
  const target = override ?? profile.target;
  if (/^https?:\/\//i.test(target)) {
    if (!URL.canParse(target)) throw new TargetError(target, 'not a valid URL');
    return target.replace(/\/$/, '');
  }
  if (/^memcached:\/\//i.test(target))
    throw new TargetError(target, 'k6 core speaks HTTP, not memcached: a memcached profile cannot be exported to k6 (run it with stampede, or export an http:// profile)');
  throw new TargetError(target, 'a k6 script needs an HTTP target: give --target http://host:port (this profile targets the model)');
}
