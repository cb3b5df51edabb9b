import { summariseSample } from '../profile/key-file.ts';
import { redactProfile } from '../profile/redaction.ts';
import type { Profile } from '../profile/types.ts';

/**
 * Non-finite limits ("inf" in YAML) survive the JSON round trip as {"$number": "Infinity"}.
 * Sensitive headers are written [redacted] (profile/redaction.ts), and `${NAME}` as the name; a
 * key file's sample as its summary: a production sample may hold millions of keys.
 */
export function profileToJson(profile: Profile): string {
  return `${JSON.stringify(storedForm(profile), (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { $number: String(v) } : v), 2)}\n`;
}

/**
 * Sensitive headers redacted; a key file's sample as its summary (path, sha256, count), not its
 * keys. A profile read back from profile.json (`stampede merge` writes its segments' profile again)
 * holds the summary already.
 */
function storedForm(profile: Profile): unknown {
  // Where unfit memcached keys are written is the loader's business (it refused or sent them), not the run's.
  const { memcachedKeyIssues: _, ...source } = profile.source;
  const redacted = redactProfile({ ...profile, source });
  const sample = profile.keys.sample;
  if (sample === undefined) return redacted;
  return { ...redacted, keys: { ...redacted.keys, sample: Array.isArray(sample.keys) ? summariseSample(sample) : sample } };
}

export function profileFromJson(text: string): Profile {
  return JSON.parse(text, storedNumbers) as Profile;
}

/** The JSON.parse reviver of profile.json: {"$number": "Infinity"} back to the number. */
export function storedNumbers(_key: string, v: unknown): unknown {
  return v !== null && typeof v === 'object' && '$number' in v && Object.keys(v).length === 1 ? Number((v as { $number: string }).$number) : v;
}
