import { z } from 'zod';

const DURATION_UNITS_US: Readonly<Record<string, number>> = { us: 1, ms: 1e3, s: 1e6, m: 60e6, h: 3600e6 };
const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(us|ms|s|m|h)$/;

/** Parses "250us", "1.5ms", "30s", "2m", "1h" into integer microseconds; a bare number means seconds. */
export function parseDurationUs(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? Math.round(text * 1e6) : undefined;
  const match = DURATION_PATTERN.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (DURATION_UNITS_US[match[2]!] ?? NaN));
}

/** A duration field: accepted as "500ms" / "30s" / seconds, resolved to integer microseconds. */
export const duration = z
  .union([z.number().nonnegative(), z.string().regex(DURATION_PATTERN, 'expected a duration like "500ms", "30s" or "2m"')])
  .transform((value) => parseDurationUs(value)!)
  .meta({ description: 'A duration: "250us", "1.5ms", "30s", "2m", "1h", or a number of seconds.' });

/** A duration that may also be the word "inf" (no limit), resolved to Infinity. */
export const durationOrInfinite = z
  .union([z.literal('inf'), duration])
  .transform((value) => (value === 'inf' ? Number.POSITIVE_INFINITY : value))
  .meta({ description: 'A duration, or "inf" for no limit.' });

/** A positive count that may also be "inf" (unbounded), resolved to Infinity. */
export const countOrInfinite = z
  .union([z.literal('inf'), z.number().int().nonnegative()])
  .transform((value) => (value === 'inf' ? Number.POSITIVE_INFINITY : value))
  .meta({ description: 'A whole number, or "inf" for no limit.' });

export const rate = z.number().nonnegative().meta({ description: 'Requests per second.' });
export const share = z.number().min(0).max(1).meta({ description: 'A fraction between 0 and 1.' });

/** `x` to `decimals` places: 0.123456 → 0.123 at 3. For figures shown in µs, ms or shares, where the last places are noise. */
export function roundTo(x: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(x * scale) / scale;
}

/** `x` to `digits` significant digits: 12_345 → 12_300 at 3. For rates, whose scale varies by orders of magnitude. */
export function roundSignificant(x: number, digits: number): number {
  return Number(x.toPrecision(digits));
}
