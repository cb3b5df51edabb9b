/*
 * k6 durations ("1m30s", "500ms", "2.5s", "0") both ways: what the exporter writes and what lint
 * reads back from a script's options.
 */

const UNIT_US: Readonly<Record<string, number>> = { h: 3600e6, m: 60e6, s: 1e6, ms: 1e3, us: 1, µs: 1, ns: 1e-3 };
const PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;

/** µs as a k6 duration: whole seconds as "30s", anything else in (fractional) milliseconds. */
export function k6Duration(us: number): string {
  if (us % 1e6 === 0) return `${us / 1e6}s`;
  return `${us / 1e3}ms`;
}

/** A k6 duration in µs: a Go-style string ("1m30s", "0.5s", "0") or a number of milliseconds; undefined when unreadable. */
export function parseK6Duration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1e3 : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) === 0 ? 0 : undefined;
  let total = 0;
  let consumed = 0;
  for (const match of text.matchAll(PART)) {
    total += Number(match[1]) * UNIT_US[match[2]!]!;
    consumed += match[0].length;
  }
  return consumed === text.length && consumed > 0 ? total : undefined;
}
