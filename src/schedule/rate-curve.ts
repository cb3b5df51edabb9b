import { phaseDurationUs } from '../profile/phases.ts';
import type { Multiplier, Phase } from '../profile/schema.ts';
import type { RateSegment } from './types.ts';

/** A phase as linear rate segments starting at `startUs`. */
export function phaseSegments(phase: Phase, startUs: number): RateSegment[] {
  const end = startUs + phaseDurationUs(phase);
  switch (phase.type) {
    case 'steady':
      return [{ startUs, endUs: end, fromRps: phase.rate, toRps: phase.rate }];
    case 'ramp':
      return [{ startUs, endUs: end, fromRps: phase.from, toRps: phase.to }];
    case 'step': {
      const stair = phase.duration / phase.steps;
      return Array.from({ length: phase.steps }, (_, i) => {
        const rps = phase.steps === 1 ? phase.to : phase.from + ((phase.to - phase.from) * i) / (phase.steps - 1);
        return { startUs: startUs + i * stair, endUs: startUs + (i + 1) * stair, fromRps: rps, toRps: rps };
      });
    }
    case 'spike': {
      const peakAt = startUs + phase.rise;
      const decayAt = peakAt + phase.hold;
      const baseAt = decayAt + phase.decay;
      return [
        { startUs, endUs: peakAt, fromRps: phase.base, toRps: phase.peak },
        { startUs: peakAt, endUs: decayAt, fromRps: phase.peak, toRps: phase.peak },
        { startUs: decayAt, endUs: baseAt, fromRps: phase.peak, toRps: phase.base },
        { startUs: baseAt, endUs: end, fromRps: phase.base, toRps: phase.base },
      ];
    }
  }
}

/**
 * The rate curve of a list of phases on the run's time axis: a warm-up at the first rate before
 * them, then the phases, then the last rate held until `endUs` when the measured duration is longer.
 * Zero-length segments are dropped.
 */
export function phasesCurve(phases: Phase[], offsetUs: number, warmupUs: number, endUs: number): RateSegment[] {
  const segments: RateSegment[] = [];
  let t = offsetUs;
  for (const phase of phases) {
    segments.push(...phaseSegments(phase, t));
    t += phaseDurationUs(phase);
  }
  const first = segments[0];
  const last = segments[segments.length - 1];
  if (first && warmupUs > 0) segments.unshift({ startUs: offsetUs - warmupUs, endUs: offsetUs, fromRps: first.fromRps, toRps: first.fromRps });
  if (last && t < endUs) segments.push({ startUs: t, endUs, fromRps: last.toRps, toRps: last.toRps });
  return clip(segments, Number.NEGATIVE_INFINITY, endUs);
}

/** The part of a curve inside [fromUs, toUs), with rates interpolated at cut points. */
export function clip(segments: RateSegment[], fromUs: number, toUs: number): RateSegment[] {
  const out: RateSegment[] = [];
  for (const s of segments) {
    const start = Math.max(s.startUs, fromUs);
    const end = Math.min(s.endUs, toUs);
    if (end > start) out.push({ startUs: start, endUs: end, fromRps: rateAt(s, start), toRps: rateAt(s, end) });
  }
  return out;
}

function rateAt(s: RateSegment, tUs: number): number {
  if (s.endUs === s.startUs) return s.fromRps;
  return s.fromRps + ((s.toRps - s.fromRps) * (tUs - s.startUs)) / (s.endUs - s.startUs);
}

/** Applies the multipliers that cover `client` (each given on the run's time axis). */
export function applyMultipliers(segments: RateSegment[], multipliers: Multiplier[], client: string, offsetUs: number, endUs: number): RateSegment[] {
  let out = segments;
  for (const m of multipliers) {
    if (m.clients && !m.clients.includes(client)) continue;
    const from = offsetUs + m.at;
    const to = m.until === undefined ? endUs : offsetUs + m.until;
    out = [...clip(out, Number.NEGATIVE_INFINITY, from), ...clip(out, from, to).map((s) => scale(s, m.factor)), ...clip(out, to, Number.POSITIVE_INFINITY)];
  }
  return out;
}

function scale(s: RateSegment, factor: number): RateSegment {
  return { ...s, fromRps: s.fromRps * factor, toRps: s.toRps * factor };
}

/** Expected requests in a segment: ∫ rate dt. */
export function segmentMass(s: RateSegment): number {
  return ((s.fromRps + s.toRps) / 2) * ((s.endUs - s.startUs) / 1e6);
}

/** Asked rate at time t summed over curves (for reports). */
export function curveRateAt(segments: readonly RateSegment[], tUs: number): number {
  for (const s of segments) if (tUs >= s.startUs && tUs < s.endUs) return rateAt(s, tUs);
  return 0;
}
