/*
 * The emitted script's size samplers (batch sizes, value bytes) and the weighted pick behind the
 * mix: the same laws as src/schedule/sample.ts, as k6 TypeScript.
 */
export const SIZES_SOURCE = `
/** Picks index i with probability weights[i] / Σ weights (binary search over the CDF). */
function cumulativePicker(weights: number[], rng: Rng): () => number {
  if (weights.length === 1) return () => 0;
  const cdf: number[] = [];
  let total = 0;
  for (const w of weights) cdf.push((total += w));
  return () => {
    const u = rng.next() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** One whole, non-negative number per call; min/max clamp rather than reject. */
function sampler(d: Distribution, rng: Rng): () => number {
  switch (d.type) {
    case 'fixed': {
      const value = Math.max(0, Math.round(d.value));
      return () => value;
    }
    case 'uniform': {
      const min = Math.ceil(d.min);
      const span = Math.floor(d.max) - min + 1;
      return () => min + Math.floor(rng.next() * span);
    }
    case 'exponential':
      return clamped(() => d.mean * rng.nextExp(), d.min, d.max);
    case 'lognormal':
      return clamped(() => d.median * Math.exp(d.sigma * standardNormal(rng)), d.min, d.max);
    case 'empirical': {
      const pick = cumulativePicker(d.values.map((v) => v.weight), rng);
      return () => Math.round(d.values[pick()].value);
    }
    case 'mixture': {
      const components = d.of.map((c) => sampler(c, rng));
      const pick = cumulativePicker(d.of.map((c) => c.weight), rng);
      return () => components[pick()]();
    }
  }
}

function clamped(draw: () => number, min: number | undefined, max: number | undefined): () => number {
  const low = min === undefined ? 0 : min;
  const high = max === undefined ? Number.POSITIVE_INFINITY : max;
  return () => Math.round(Math.min(high, Math.max(low, draw())));
}

/** Box–Muller, one normal per call. */
function standardNormal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}
`;
