import type { Profile } from '../../profile/types.ts';

/**
 * Share of key lookups that land on the `k` most popular keys of a profile at its most skewed
 * moment: the named hot keys at their peaks first (they rank above every generated key), then the
 * popularity law over the rest of the draws.
 */
export function topKeyShare(keys: Profile['keys'], k: number): number {
  const hotPeaks = keys.hot.map((h) => h.peak).sort((a, b) => b - a);
  const hotShare = hotPeaks.reduce((sum, p) => sum + p, 0);
  const fromHot = hotPeaks.slice(0, k).reduce((sum, p) => sum + p, 0);
  const rest = Math.max(0, k - hotPeaks.length);
  return Math.min(1, fromHot + (1 - hotShare) * lawShare(keys, rest));
}

/** Share of the popularity law's draws on its top `k` ranks. */
function lawShare(keys: Profile['keys'], k: number): number {
  const n = keys.count;
  if (k <= 0) return 0;
  if (k >= n) return 1;
  // A key file's weights, when the profile holds them (a profile.json read back keeps only their summary).
  const weights = keys.sample?.cumulative;
  if (weights) return weights[k - 1]!;
  const p = keys.popularity;
  switch (p.type) {
    case 'uniform':
      return k / n;
    case 'zipf':
      return harmonic(k, p.s) / harmonic(n, p.s);
    case 'hotspot': {
      const hot = p.keyFraction * n;
      return k <= hot ? (p.trafficShare * k) / hot : p.trafficShare + ((1 - p.trafficShare) * (k - hot)) / (n - hot);
    }
  }
}

/** Σ_{i=1..n} i^-s; exact to 10^5 terms, then the Euler–Maclaurin tail, so a 10^9-key space costs nothing. */
function harmonic(n: number, s: number): number {
  const exact = Math.min(n, 100_000);
  let sum = 0;
  for (let i = 1; i <= exact; i++) sum += i ** -s;
  if (n === exact) return sum;
  const integral = (x: number) => (s === 1 ? Math.log(x) : x ** (1 - s) / (1 - s));
  return sum + integral(n) - integral(exact) + (n ** -s - exact ** -s) / 2;
}
