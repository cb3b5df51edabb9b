import type { Rng } from './rng.ts';
import { segmentMass } from './rate-curve.ts';
import type { RateSegment } from './types.ts';

/**
 * Arrival times of one client on its rate curve, by time change: arrival i sits where the
 * integrated rate Λ(t) reaches m_i. Constant arrivals use m_i = i (evenly spaced at the current
 * rate); Poisson arrivals use m_i = Σ Exp(1), which yields a non-homogeneous Poisson process with
 * exactly the asked rate λ(t). Times are absolute offsets, so lateness never accumulates.
 */
export class ArrivalStream {
  private segment = 0;
  private massAtSegmentStart = 0;
  private targetMass: number;

  constructor(
    private readonly segments: readonly RateSegment[],
    private readonly poisson: boolean,
    private readonly rng: Rng,
  ) {
    this.targetMass = poisson ? rng.nextExp() : 0;
  }

  /** Next intended time in µs (integer), or -1 when the curve is exhausted. */
  next(): number {
    for (;;) {
      const s = this.segments[this.segment];
      if (!s) return -1;
      const mass = segmentMass(s);
      const within = this.targetMass - this.massAtSegmentStart;
      if (within < mass) {
        const t = s.startUs + offsetForMass(s, within);
        this.targetMass += this.poisson ? this.rng.nextExp() : 1;
        return Math.min(Math.floor(t), s.endUs - 1);
      }
      this.massAtSegmentStart += mass;
      this.segment++;
    }
  }
}

/** Solves r0·x + (r1−r0)/(2T)·x² = m for x (µs), in the form that stays stable when r0 = 0 or r1 < r0. */
function offsetForMass(s: RateSegment, mass: number): number {
  if (mass <= 0) return 0;
  const lengthS = (s.endUs - s.startUs) / 1e6;
  const r0 = s.fromRps;
  const a = (s.toRps - r0) / (2 * lengthS);
  const xS = a === 0 ? mass / r0 : (2 * mass) / (r0 + Math.sqrt(Math.max(0, r0 * r0 + 4 * a * mass)));
  return xS * 1e6;
}
