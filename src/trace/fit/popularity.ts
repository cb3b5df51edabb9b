import type { ZipfFit } from '../zipf-fit.ts';

/*
 * Key popularity: the fitted Zipf exponent when a Zipf law describes the trace, otherwise the
 * trace's own popularity, as a key file of the most requested keys with their counts as weights
 * (keys.file), which the schedule draws from as is. A Zipf law describes the trace when the ranks
 * it was fitted on sit near its line (within ×1.3) and when, over the whole keyspace, it gives the
 * top 1, 10, 100 and 1,000 keys the shares they have (within 5 points or a quarter): a head fitted
 * well can still hide a cliff after it.
 */

/** Past this typical factor between frequency and the fitted line, a Zipf law is not the trace's shape. */
export const ZIPF_DEVIATION_LIMIT = 1.3;
/** Keys a key file of the empirical popularity holds: the most requested. */
const KEY_FILE_KEYS = 100_000;

export type FittedPopularity = { kind: 'zipf'; s: number; fit: ZipfFit } | { kind: 'empirical'; csv: string; keys: number; share: number; fit: ZipfFit | undefined };

export function fitPopularity(zipf: ZipfFit | undefined, names: readonly string[], counts: Float64Array, requests: number, topShares: readonly TopShare[]): FittedPopularity {
  if (zipf && zipf.deviation <= ZIPF_DEVIATION_LIMIT && sharesHold(zipf.alpha, names.length, topShares))
    return { kind: 'zipf', s: Math.max(0.0001, Math.round(zipf.alpha * 1000) / 1000), fit: zipf };
  const order = Uint32Array.from({ length: names.length }, (_, i) => i)
    .sort((a, b) => counts[b]! - counts[a]! || a - b)
    .subarray(0, KEY_FILE_KEYS);
  let covered = 0;
  const lines = ['key,weight'];
  for (const id of order) {
    covered += counts[id]!;
    lines.push(`${csvField(names[id]!)},${counts[id]}`);
  }
  return { kind: 'empirical', csv: `${lines.join('\n')}\n`, keys: order.length, share: requests > 0 ? covered / requests : 0, fit: zipf };
}

interface TopShare {
  keys: number;
  share: number;
}

/** Whether Zipf(alpha) over `n` keys gives each top-k group the share the trace shows. */
function sharesHold(alpha: number, n: number, observed: readonly TopShare[]): boolean {
  const whole = harmonic(n, alpha);
  return observed.every(({ keys, share }) => {
    if (keys >= n) return true;
    const predicted = harmonic(keys, alpha) / whole;
    return Math.abs(predicted - share) <= Math.max(0.05, 0.25 * share);
  });
}

/** H(n, s) = Σ_{k=1..n} k^−s: summed exactly to 10⁴, then by its integral (the rest's terms are smooth). */
function harmonic(n: number, s: number): number {
  const exact = Math.min(n, 10_000);
  let sum = 0;
  for (let k = 1; k <= exact; k++) sum += k ** -s;
  if (n <= exact) return sum;
  const integral = (x: number) => (Math.abs(s - 1) < 1e-9 ? Math.log(x) : x ** (1 - s) / (1 - s));
  return sum + integral(n + 0.5) - integral(exact + 0.5);
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
