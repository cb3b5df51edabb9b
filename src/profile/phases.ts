import type { Phase } from './schema.ts';
import type { Salvaged } from './schema-walk.ts';

/*
 * How long phases last: the one home of the formula, for the schedule that runs them, the checks
 * that bound a profile's duration by them and the flags that judge a run's length. The checks also
 * ask it of phases that parsed only in part (Salvaged): undefined then means a figure is unknown.
 */

type SpikePhase = Extract<Phase, { type: 'spike' }>;

/** How long a phase lasts, µs: its duration; a spike given none lasts rise + hold + decay. */
export function phaseDurationUs(phase: Phase): number;
export function phaseDurationUs(phase: Salvaged<Phase>): number | undefined;
export function phaseDurationUs(phase: Salvaged<Phase>): number | undefined {
  if (phase.type === 'spike' && phase.duration === undefined) return spikeShapeUs(phase);
  return phase.duration;
}

/** How long a spike takes to rise, hold its peak and decay back to its base, µs. */
export function spikeShapeUs(spike: SpikePhase): number;
export function spikeShapeUs(spike: Salvaged<SpikePhase>): number | undefined;
export function spikeShapeUs(spike: Salvaged<SpikePhase>): number | undefined {
  const { rise, hold, decay } = spike;
  return rise === undefined || hold === undefined || decay === undefined ? undefined : rise + hold + decay;
}

/** How long phases run one after another last, µs: what a profile's measured duration defaults to. */
export function phasesDurationUs(phases: readonly Phase[]): number;
export function phasesDurationUs(phases: readonly (Salvaged<Phase> | undefined)[]): number | undefined;
export function phasesDurationUs(phases: readonly (Salvaged<Phase> | undefined)[]): number | undefined {
  let sum = 0;
  for (const phase of phases) {
    const us = phase === undefined ? undefined : phaseDurationUs(phase);
    if (us === undefined) return undefined;
    sum += us;
  }
  return sum;
}

/** The measured duration of a profile, µs: its own, else its phases' (the schema leaves it unset then). */
export function measuredDurationUs(profile: { readonly duration?: number | undefined; readonly phases: readonly Phase[] }): number {
  return profile.duration ?? phasesDurationUs(profile.phases);
}
