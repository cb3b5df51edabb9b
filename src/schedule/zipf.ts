import type { Rng } from './rng.ts';

/**
 * Zipf(s, n) over ranks 1..n by rejection-inversion (Hörmann & Derflinger 1996): O(1) per draw
 * with no table, so a keyspace of 10^8 costs nothing to set up, and any exponent s > 0 works
 * (YCSB hard-codes 0.99; we do not).
 */
export class ZipfSampler {
  private readonly hIntegralX1: number;
  private readonly hIntegralN: number;
  private readonly sDiv: number;

  constructor(
    private readonly n: number,
    private readonly s: number,
    private readonly rng: Rng,
  ) {
    this.hIntegralX1 = this.hIntegral(1.5) - 1;
    this.hIntegralN = this.hIntegral(n + 0.5);
    this.sDiv = 2 - this.hIntegralInverse(this.hIntegral(2.5) - this.h(2));
  }

  /** A rank in 1..n; rank 1 is the most popular. */
  next(): number {
    for (;;) {
      const u = this.hIntegralN + this.rng.next() * (this.hIntegralX1 - this.hIntegralN);
      const x = this.hIntegralInverse(u);
      let k = Math.floor(x + 0.5);
      if (k < 1) k = 1;
      else if (k > this.n) k = this.n;
      if (k - x <= this.sDiv || u >= this.hIntegral(k + 0.5) - this.h(k)) return k;
    }
  }

  private h(x: number): number {
    return Math.exp(-this.s * Math.log(x));
  }

  private hIntegral(x: number): number {
    const logX = Math.log(x);
    return expm1OverX((1 - this.s) * logX) * logX;
  }

  private hIntegralInverse(x: number): number {
    let t = x * (1 - this.s);
    if (t < -1) t = -1;
    return Math.exp(log1pOverX(t) * x);
  }
}

function expm1OverX(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + (x / 3) * (1 + x * 0.25));
}

function log1pOverX(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - x * 0.25));
}
