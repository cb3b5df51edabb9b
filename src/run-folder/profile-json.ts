import { redactProfile } from '../profile/secrets.ts';
import type { Profile } from '../profile/types.ts';

/**
 * Non-finite limits ("inf" in YAML) survive the JSON round trip as {"$number": "Infinity"}.
 * Sensitive headers are written [redacted] (profile/secrets.ts), whatever the process's secrets.
 */
export function profileToJson(profile: Profile): string {
  return `${JSON.stringify(redactProfile(profile), (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { $number: String(v) } : v), 2)}\n`;
}

export function profileFromJson(text: string): Profile {
  return JSON.parse(text, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && '$number' in v && Object.keys(v).length === 1 ? Number((v as { $number: string }).$number) : v,
  ) as Profile;
}
