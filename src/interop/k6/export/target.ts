import { HTTP } from '../../../profile/protocols/http/spec.ts';
import { parseTarget, protocolOf } from '../../../profile/protocols/registry.ts';
import { TargetError } from '../../../profile/target.ts';
import type { Profile } from '../../../profile/types.ts';

/**
 * The base URL the exported script aims at: `--target` or the profile's own, when it is HTTP — k6
 * core speaks HTTP alone. It has no memcached client (xk6 extensions exist, but @types/k6 does not
 * type them, and the script would no longer run on a stock k6), so a memcached profile is refused,
 * not half-exported.
 * @throws TargetError (exit 2)
 */
export function baseUrlOf(profile: Profile, override: string | undefined): string {
  const text = override ?? profile.target;
  const protocol = protocolOf(parseTarget(text));
  if (protocol === HTTP) return text.replace(/\/$/, '');
  if (protocol.simulated) throw new TargetError(text, 'a k6 script needs an HTTP target: give --target http://host:port (this profile targets the model)');
  throw new TargetError(
    text,
    `k6 core speaks HTTP, not ${protocol.name}: a ${protocol.name} profile cannot be exported to k6 (run it with stampede, or export an http:// profile)`,
  );
}
