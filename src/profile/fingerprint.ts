import { createHash } from 'node:crypto';

/**
 * canonicalJson renders a value as JSON with object keys sorted at every level, so equal profiles give equal text
 * however their YAML was ordered. Non-finite numbers (an "inf" limit) become the strings "Infinity"/"-Infinity",
 * which JSON cannot otherwise hold; undefined fields are left out as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(String(value));
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** sha256Hex is the hex sha256 of a value's canonical JSON. */
export function sha256Hex(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
