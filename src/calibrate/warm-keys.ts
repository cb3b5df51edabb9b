import type { Popularity } from '../profile/schema.ts';

/**
 * How many of the most popular keys a warm cache must hold for `hitRatio` of the draws to find
 * their key: the smallest K whose popularity mass reaches it. A model cache started warm with
 * capacity K (its K most popular keys, least recently used evicted) hits about that often, as the
 * real memcached did once earlier steps had filled it. Undefined when no keys are needed.
 */
export function warmKeysFor(hitRatio: number, count: number, popularity: Popularity): number | undefined {
  if (!(hitRatio > 0) || count < 1) return undefined;
  const target = Math.min(hitRatio, 1);
  if (popularity.type === 'uniform') return Math.max(1, Math.ceil(target * count));
  if (popularity.type === 'hotspot') return hotspotKeys(target, count, popularity.keyFraction, popularity.trafficShare);
  return zipfKeys(target, count, popularity.s);
}

/** Zipf: mass(K) = H(K, s) ÷ H(count, s), found by one pass over the ranks. */
function zipfKeys(target: number, count: number, s: number): number {
  let total = 0;
  for (let k = 1; k <= count; k++) total += k ** -s;
  let mass = 0;
  for (let k = 1; k <= count; k++) {
    mass += k ** -s;
    if (mass / total >= target) return k;
  }
  return count;
}

/** Hotspot: the hot keys carry trafficShare evenly, the rest the remainder evenly. */
function hotspotKeys(target: number, count: number, keyFraction: number, trafficShare: number): number {
  const hot = Math.max(1, Math.round(keyFraction * count));
  if (target <= trafficShare) return Math.max(1, Math.ceil((target / trafficShare) * hot));
  const cold = count - hot;
  const rest = trafficShare < 1 ? (target - trafficShare) / (1 - trafficShare) : 0;
  return Math.min(count, hot + Math.ceil(rest * cold));
}
