import type { PathSegment } from './issues.ts';

/*
 * Which fields of a profile hold a secret: the value of a sensitive header (SENSITIVE_HEADER_*),
 * and whatever leads to one. Whatever a `${NAME}` reference resolves to is a secret too, but only
 * the driver ever sees it (secrets.ts): every writer gets the reference, a name. So redaction is
 * decided by where a value sits (redaction.ts, and every message that would quote a field's
 * value), never by searching output for the secret's characters, which mangles any file where
 * they also occur (a secret "0" is in every number, "stampede" in result.json's schema name).
 */

/** What stands in for a secret wherever it would be written. */
export const REDACTED = '[redacted]';

/** Headers whose value is a credential (lower case). */
export const SENSITIVE_HEADER_NAMES = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key'] as const;
/** Any header whose name contains one of these is sensitive too (x-auth-token, x-session-id, x-client-secret…). */
export const SENSITIVE_HEADER_PARTS = ['auth', 'token', 'secret', 'key', 'password', 'credential', 'session', 'cookie'] as const;

export function isSensitiveHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (SENSITIVE_HEADER_NAMES as readonly string[]).includes(lower) || SENSITIVE_HEADER_PARTS.some((part) => lower.includes(part));
}

/** Where a request's headers sit: http.requests.<kind>.headers. */
const HEADERS_DEPTH = 4;

/**
 * Whether the value at `path` holds a secret: it is a sensitive header's value (or inside one), or
 * it leads to one — a mapping of requests or headers naming a sensitive header, or a scalar where
 * the headers mapping belongs (a header block written as one text cannot be told apart).
 */
export function holdsSecret(path: readonly PathSegment[], value: unknown): boolean {
  if (!onTheWayToHeaders(path)) return false;
  if (path.length > HEADERS_DEPTH) return mayHoldSecret(path);
  if (value === null || typeof value !== 'object') return path.length === HEADERS_DEPTH && value !== undefined && value !== null;
  return Object.entries(value).some(([key, inner]) => holdsSecret([...path, Array.isArray(value) ? Number(key) : key], inner));
}

/** Whether some value at `path` could hold a secret: it is, or leads to, a sensitive header. */
export function mayHoldSecret(path: readonly PathSegment[]): boolean {
  return onTheWayToHeaders(path) && (path.length <= HEADERS_DEPTH || isSensitiveHeader(String(path[HEADERS_DEPTH])));
}

/** `path` is http, http.requests, http.requests.<kind>, …headers, or below them. */
function onTheWayToHeaders(path: readonly PathSegment[]): boolean {
  const shape = ['http', 'requests', undefined, 'headers'];
  return shape.every((segment, i) => i >= path.length || segment === undefined || path[i] === segment);
}

/** How a message names a secret's value: its kind, never its text. */
export function describeHidden(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value} (not shown: it is a secret's field)`;
}
