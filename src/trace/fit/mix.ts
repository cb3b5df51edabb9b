import { roundTo } from '../../profile/units.ts';
import { isWrite, TRACE_OPERATIONS } from '../request.ts';
import type { SizeHistogram } from '../size-histogram.ts';

/*
 * The trace's operation mix as the profile's: a kind per operation, weighted by its share, each
 * write carrying the value sizes that operation carried in the trace (an empirical distribution of
 * 32 equal-count groups, which keeps the mean) and the TTLs it set. Each kind is named after its
 * operation, which the memcached driver sends as it is (add as add, cas as cas): no mapping needed.
 */

export interface FittedMix {
  mix: {
    kind: string;
    weight: number;
    valueSize?: { type: 'empirical'; values: { value: number; weight: number }[] };
    ttl?: string | { type: 'empirical'; values: { value: string; weight: number }[] };
  }[];
  notes: string[];
}

const SIZE_GROUPS = 32;
export function fitMix(shares: Record<string, number>, sizesByOperation: readonly SizeHistogram[], ttlsByOperation: readonly Map<number, number>[]): FittedMix {
  const mix: FittedMix['mix'] = [];
  const notes: string[] = [];
  const skipped: string[] = [];
  for (const [name, share] of Object.entries(shares)) {
    const operation = TRACE_OPERATIONS.indexOf(name as (typeof TRACE_OPERATIONS)[number]);
    if (operation < 0) {
      skipped.push(`${name} (${(share * 100).toPrecision(2)}%)`);
      continue;
    }
    const sizes = sizesByOperation[operation]!;
    const write = isWrite(operation);
    const ttl = write ? ttlOf(ttlsByOperation[operation]!) : undefined;
    mix.push({ kind: name, weight: Math.max(0.0001, roundTo(share, 4)), ...(write && sizes.total > 0 && { valueSize: empiricalSizes(sizes) }), ...(ttl !== undefined && { ttl }) });
  }
  if (skipped.length > 0) notes.push(`left out: operations the cache-trace format does not name: ${skipped.join(', ')}`);
  return { mix, notes };
}

/** TTLs kept per kind: the most common; the rest (a long tail of odd values) share their weight. */
const TTLS_KEPT = 8;

/** The TTLs one operation's writes set: one value, or the most common as an empirical mix; undefined when none sets one. */
function ttlOf(ttls: Map<number, number>): FittedMix['mix'][number]['ttl'] {
  const common = [...ttls.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, TTLS_KEPT);
  if (common.length === 0 || (common.length === 1 && common[0]![0] === 0)) return undefined;
  if (common.length === 1) return `${common[0]![0]}s`;
  const total = common.reduce((sum, [, n]) => sum + n, 0);
  return { type: 'empirical', values: common.map(([ttlS, n]) => ({ value: `${ttlS}s`, weight: roundTo(n / total, 6) })) };
}

/** Sizes as an empirical distribution of equal-count groups, each its mean: the histogram's mean kept. */
export function empiricalSizes(sizes: SizeHistogram): { type: 'empirical'; values: { value: number; weight: number }[] } {
  return { type: 'empirical', values: sizes.quantileMeans(SIZE_GROUPS).map((g) => ({ value: Math.max(1, Math.round(g.value)), weight: roundTo(g.weight, 6) })) };
}
