import type { Production } from '../../profile/schema.ts';
import type { Profile } from '../../profile/types.ts';
import { roundTo } from '../../profile/units.ts';

/**
 * Derives a `production:` section from a sample of production requests: a CSV with a header and
 * any of the columns `key`, `batch` (or batchSize, batch_size, keys), `value` (or valueSize,
 * value_size, bytes) and `time` (or timestamp, ts; seconds). Pure: text in, figures out.
 */
export function productionFromSample(csv: string): Production {
  const rows = csv.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const header = (rows.shift() ?? '').split(',').map((h) => h.trim().toLowerCase());
  const column = (...names: string[]) => header.findIndex((h) => names.includes(h));
  const keyCol = column('key');
  const batchCol = column('batch', 'batchsize', 'batch_size', 'keys');
  const valueCol = column('value', 'valuesize', 'value_size', 'bytes');
  const timeCol = column('time', 'timestamp', 'ts');
  const cells = rows.map((r) => r.split(',').map((c) => c.trim()));
  const numbers = (col: number) => (col < 0 ? [] : cells.map((c) => Number(c[col])).filter((n) => Number.isFinite(n)));
  const production: Production = {};
  if (keyCol >= 0) {
    const counts = new Map<string, number>();
    for (const c of cells) if (c[keyCol]) counts.set(c[keyCol]!, (counts.get(c[keyCol]!) ?? 0) + 1);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    const total = sorted.reduce((a, b) => a + b, 0);
    const shares: { keys: number; share: number }[] = [];
    for (const k of [1, 10, 100, 1000, 10000]) {
      if (k >= sorted.length && k > 1) break;
      shares.push({ keys: k, share: roundTo(sorted.slice(0, k).reduce((a, b) => a + b, 0) / total, 4) });
    }
    if (total > 0) production.topKeyShares = shares;
  }
  const batches = numbers(batchCol);
  if (batches.length > 0) production.batchSize = sizePercentiles(batches);
  const values = numbers(valueCol);
  if (values.length > 0) production.valueSize = sizePercentiles(values);
  const times = numbers(timeCol);
  if (times.length > 0) {
    const perSecond = new Map<number, number>();
    for (const t of times) perSecond.set(Math.floor(t), (perSecond.get(Math.floor(t)) ?? 0) + 1);
    // A loop: a spread would put every second of a long sample on the stack.
    let peak = 0;
    for (const n of perSecond.values()) peak = Math.max(peak, n);
    production.peakRps = peak;
  }
  return production;
}

/** Nearest-rank percentiles of a sample; p99.99 only when the sample can resolve it. */
function sizePercentiles(sample: number[]): NonNullable<Production['batchSize']> {
  const sorted = [...sample].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return {
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    ...(sorted.length >= 1000 && { p999: at(0.999) }),
    ...(sorted.length >= 10000 && { p9999: at(0.9999) }),
    max: sorted[sorted.length - 1]!,
  };
}

/** The profile with the sample's figures over its own `production:` (the sample is the newer measurement). */
export function withProduction(profile: Profile, derived: Production): Profile {
  return { ...profile, production: { ...profile.production, ...derived } };
}
