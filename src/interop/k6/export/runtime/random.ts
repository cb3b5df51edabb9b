/*
 * The emitted script's random numbers: the same generator as src/schedule/rng.ts and zipf.ts
 * (xoshiro128** seeded through splitmix32, FNV-1a seed derivation, Zipf by rejection-inversion),
 * written out as k6 TypeScript. k6 gives each VU its own JavaScript runtime, so every VU seeds its
 * own streams from the profile's seed and its VU id: the same run replays, VUs never share state.
 */
export const RANDOM_SOURCE = `
/** xoshiro128** seeded through splitmix32, as stampede's own schedule draws. */
class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    let state = seed >>> 0;
    const splitmix = (): number => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = splitmix();
    this.s1 = splitmix();
    this.s2 = splitmix();
    this.s3 = splitmix();
  }

  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [0, 1) with 53 bits. */
  next(): number {
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }

  /** Exponential with mean 1. */
  nextExp(): number {
    return -Math.log1p(-this.next());
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** The seed of the stream called \`label\`: FNV-1a over the label, mixed with the profile's seed. */
function deriveSeed(seed: number, label: string): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  hash = Math.imul(hash, 0x01000193);
  hash ^= Math.floor(seed / 4294967296) >>> 0;
  hash = Math.imul(hash, 0x01000193);
  for (let i = 0; i < label.length; i++) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Zipf(s, n) over ranks 1..n by rejection-inversion (Hörmann & Derflinger 1996): O(1) per draw, no table. */
class Zipf {
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
`;
