import { roundSignificant } from '../profile/units.ts';
/*
 * How every figure is written, in one place: the summary, the reports and the flags format a
 * duration, a share or a count the same way. Deterministic (no locale).
 */

/** 850 → "850us", 12_500 → "12.5ms", 2_000_000 → "2s". */
export function formatUs(us: number): string {
  if (us < 1000) return `${roundSignificant(us, 3)}us`;
  if (us < 1e6) return `${roundSignificant(us / 1000, 3)}ms`;
  return `${roundSignificant(us / 1e6, 3)}s`;
}

/** A limit and the value that broke it, with enough digits to see the difference: 100.3ms against 100ms. */
export function formatUsAgainst(us: number, limitUs: number): string {
  const short = formatUs(us);
  if (us === limitUs || short !== formatUs(limitUs)) return short;
  for (let digits = 4; digits <= 9; digits++) {
    const scale = us < 1000 ? 1 : us < 1e6 ? 1000 : 1e6;
    const text = `${Number((us / scale).toPrecision(digits))}${us < 1000 ? 'us' : us < 1e6 ? 'ms' : 's'}`;
    const limitText = `${Number((limitUs / scale).toPrecision(digits))}`;
    if (!text.startsWith(limitText)) return text;
  }
  return `${us}us`;
}

/** 0.1234 → "12.3%", 0.001 → "0.1%": a share of a whole (hit ratio, error rate). */
export function formatShare(x: number): string {
  const pct = x * 100;
  return `${pct >= 10 ? pct.toFixed(1) : Number(pct.toPrecision(2))}%`;
}

/** 12345.6 → "12,346"; small numbers keep three significant digits. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? 'unbounded' : '–';
  if (Math.abs(n) < 100) return String(Number(n.toPrecision(3)));
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 5300 → "5.3 KB", in bytes of 1,000 (as production dashboards quote them). */
export function formatBytes(n: number): string {
  if (n >= 1e6) return `${Number((n / 1e6).toPrecision(3))} MB`;
  if (n >= 1e3) return `${Number((n / 1e3).toPrecision(3))} KB`;
  return `${Math.round(n)} B`;
}

/** A signed change as a percentage: +12%, −5%. */
export function formatChange(x: number): string {
  return `${x >= 0 ? '+' : ''}${Math.round(x * 100)}%`;
}
