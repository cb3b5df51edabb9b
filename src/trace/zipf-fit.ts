/*
 * The Zipf exponent of a trace's key popularity: the slope of log(frequency) against log(rank).
 *
 * Ranking keys by their counts and reading the same counts back biases the slope upwards: even a
 * uniform keyspace, sorted by its sampling noise, descends (100 requests a key ± 10 reads as Zipf
 * 0.05). So the requests are split in two halves: keys are ranked by one half's counts and their
 * frequency read from the other's, whose noise the ranking never saw. Only ranks whose key the
 * ranking half saw often enough take part (a key seen once or twice could be rank 10⁴ or 10⁶), and
 * ranks are averaged over geometric bins so the thousands of tail ranks do not outweigh the head.
 * How far the points sit from the line says how well a Zipf law describes the trace at all.
 */

/** Ranks whose key the ranking half saw fewer times than this are not fitted: their rank is mostly noise. */
const MIN_COUNT = 10;
/** Geometric bins of ranks: about 20 per decade. */
const BIN_GROWTH = 10 ** (1 / 20);

export interface ZipfFit {
  /** The exponent s of frequency ∝ rank^−s; 0 when every key is as popular as any other. */
  alpha: number;
  /** R² of the log-log line (of little meaning near alpha 0, where a flat line explains nothing). */
  r2: number;
  /**
   * The typical factor between a rank's frequency and the line's beyond what sampling explains
   * (e^RMS of the log residuals, less their Poisson variance): 1.0–1.1 fits; 1.5, another shape.
   */
  deviation: number;
  /** The ranks fitted, and the binned points taken from them. */
  ranks: number;
  points: number;
}

/**
 * The fit of per-key request counts split in two halves (`ranking[id]`, `reading[id]`); undefined
 * when fewer than 3 points are known well enough to fit.
 */
export function fitZipf(ranking: ArrayLike<number>, reading: ArrayLike<number>, distinct: number): ZipfFit | undefined {
  const order = Uint32Array.from({ length: distinct }, (_, i) => i).sort((a, b) => ranking[b]! - ranking[a]! || a - b);
  let ranks = 0;
  while (ranks < distinct && ranking[order[ranks]!]! >= MIN_COUNT) ranks++;
  const xs: number[] = [];
  const ys: number[] = [];
  /** The sampling variance of each point's log frequency: 1 / the requests it sums (Poisson). */
  let noise = 0;
  for (let from = 0; from < ranks; ) {
    const to = Math.min(ranks, Math.max(from + 1, Math.floor((from + 1) * BIN_GROWTH)));
    let sum = 0;
    for (let r = from; r < to; r++) sum += reading[order[r]!]!;
    if (sum > 0) {
      xs.push(Math.log((from + 1 + to) / 2));
      ys.push(Math.log(sum / (to - from)));
      noise += 1 / sum;
    }
    from = to;
  }
  if (xs.length < 3) return undefined;
  const { slope, r2, meanSquare } = leastSquares(xs, ys);
  const excess = Math.max(0, meanSquare - noise / xs.length);
  return { alpha: Math.max(0, -slope), r2, deviation: Math.exp(Math.sqrt(excess)), ranks, points: xs.length };
}

function leastSquares(xs: readonly number[], ys: readonly number[]): { slope: number; r2: number; meanSquare: number } {
  const n = xs.length;
  const meanX = xs.reduce((a, b) => a + b, 0) / n;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - meanX;
    const dy = ys[i]! - meanY;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  // Every point at one height (a uniform head) is a perfect horizontal line.
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  const residual = Math.max(0, syy - slope * sxy);
  return { slope, r2, meanSquare: residual / n };
}
