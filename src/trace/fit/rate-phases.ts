import { roundTo } from '../../profile/units.ts';

/*
 * The trace's rate curve as steady phases: the seconds are grouped in bins (a few per minute of a
 * short trace, a minute each for a week), and neighbouring bins join one phase while their rate
 * stays within what sampling noise or 10% of the phase explains. A diurnal curve becomes a
 * staircase that follows it; a flat trace, one phase.
 */

export interface SteadyPhase {
  type: 'steady';
  rate: number;
  duration: string;
}

/** Most phases a fit writes: past it the bins widen. */
const MAX_PHASES = 200;
const TOLERANCE = 0.1;

/** Steady phases of the per-second request counts (one entry per second of the trace). */
export function ratePhases(perSecond: Float64Array): SteadyPhase[] {
  for (let width = binWidthFor(perSecond.length); ; width *= 2) {
    const phases = phasesAt(perSecond, width);
    if (phases.length <= MAX_PHASES || width >= perSecond.length) return phases;
  }
}

/** About 120 bins over the trace, at least a second and at most a minute each. */
function binWidthFor(seconds: number): number {
  return Math.min(60, Math.max(1, Math.round(seconds / 120)));
}

function phasesAt(perSecond: Float64Array, width: number): SteadyPhase[] {
  const phases: SteadyPhase[] = [];
  let requests = 0;
  let seconds = 0;
  for (let from = 0; from < perSecond.length; from += width) {
    const span = perSecond.subarray(from, Math.min(perSecond.length, from + width));
    const binRequests = span.reduce((a, b) => a + b, 0);
    if (seconds > 0 && !sameRate(requests / seconds, binRequests, span.length)) {
      phases.push(steady(requests, seconds));
      requests = 0;
      seconds = 0;
    }
    requests += binRequests;
    seconds += span.length;
  }
  if (seconds > 0) phases.push(steady(requests, seconds));
  return phases;
}

/** A bin continues a phase when its count is within 10% of the phase's rate, or within 3 Poisson standard deviations of it. */
function sameRate(phaseRate: number, binRequests: number, binSeconds: number): boolean {
  const expected = phaseRate * binSeconds;
  return Math.abs(binRequests - expected) <= Math.max(TOLERANCE * expected, 3 * Math.sqrt(expected));
}

function steady(requests: number, seconds: number): SteadyPhase {
  const rate = requests / seconds;
  return { type: 'steady', rate: rate >= 100 ? Math.round(rate) : roundTo(rate, 2), duration: `${seconds}s` };
}
