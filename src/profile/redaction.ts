import { parseOverride, parseOverridePath } from './overrides.ts';
import type { PathSegment } from './issues.ts';
import type { HttpSettings } from './protocols/http/section.ts';
import { holdsSecret, isSensitiveHeader, mayHoldSecret, REDACTED } from './secret-fields.ts';
import type { Profile } from './types.ts';

/* The written form of what holds a secret (secret-fields.ts): profile.json's headers, a `--set`. */

/**
 * The profile as it may be written (profile.json): every sensitive header's value [redacted], and
 * so is a `--set` that wrote one. `${NAME}` elsewhere stays: it is a name.
 */
export function redactProfile(profile: Profile): Profile {
  const requests = Object.fromEntries(
    Object.entries(profile.http.requests).map(([kind, t]) => [
      kind,
      { ...t, headers: Object.fromEntries(Object.entries(t.headers).map(([name, value]) => [name, isSensitiveHeader(name) ? REDACTED : value])) },
    ]),
  ) as HttpSettings['requests'];
  return { ...profile, http: { ...profile.http, requests }, source: { ...profile.source, overrides: profile.source.overrides.map(redactOverride) } };
}

/**
 * A `--set` as it may be written or printed: its value [redacted] when it holds a secret
 * (`http.requests.get.headers.authorization=Bearer x`, `http.requests.get={headers: {cookie: x}}`),
 * as given otherwise. A value that is not YAML has no known structure, and a path read only in
 * part no known end: such a value is not shown where it may land in a header.
 */
export function redactOverride(text: string): string {
  if (!overrideHoldsSecret(text)) return text;
  const eq = text.indexOf('=');
  return eq < 0 ? REDACTED : `${text.slice(0, eq)}=${REDACTED}`;
}

/**
 * Why a `--set` could not be read, as it may be printed: a problem with a secret's value would
 * quote it (YAML's "Not a YAML token: …"), so it is only named; a problem with the path quotes a path.
 */
export function overrideProblem(text: string, problem: string): string {
  if (!overrideHoldsSecret(text)) return problem;
  if (!text.includes('=')) return 'expected path=value (no "=")';
  return parseOverridePath(text.slice(0, text.indexOf('=')).trim()) === undefined ? problem : `expected a YAML value after "=" (not shown: it is a secret's field)`;
}

/** Whether a `--set` writes a secret (a sensitive header, or a mapping holding one), by its structure. */
export function overrideHoldsSecret(text: string): boolean {
  const eq = text.indexOf('=');
  if (eq < 0) return pathMayHoldSecret(text.trim());
  const override = parseOverride(text);
  return 'problem' in override ? pathMayHoldSecret(text.slice(0, eq).trim()) : holdsSecret(override.path, override.value);
}

/** Whether some value at the path could hold a secret; a path read only in part, as far as it can be read. */
function pathMayHoldSecret(text: string): boolean {
  const whole = parseOverridePath(text);
  if (whole !== undefined) return mayHoldSecret(whole);
  const readable: PathSegment[] = [];
  for (const part of text.split('.')) {
    const segments = parseOverridePath(part);
    if (segments === undefined) break;
    readable.push(...segments);
  }
  return readable.length > 0 && mayHoldSecret(readable);
}
