import type { Phase } from './schema.ts';

/*
 * How long phases last: the one home of the formula, for the schedule that runs them, the checks
 * that bound a profile's duration by them and the flags that judge a run's length.
 */

/** How long a phase lasts, µs: its duration; a spike given none lasts rise + hold + decay. */
export function phaseDurationUs(phase: Phase): number {
  if (phase.type !== 'spike') return phase.duration;
  return phase.duration ?? spikeShapeUs(phase);
}

/** How long a spike takes to rise, hold its peak and decay back to its base, µs. */
export function spikeShapeUs(phase: Extract<Phase, { type: 'spike' }>): number {
  return phase.rise + phase.hold + phase.decay;
}

/** How long phases run one after another last, µs: what a profile's measured duration defaults to. */
export function phasesDurationUs(phases: readonly Phase[]): number {
  return phases.reduce((sum, phase) => sum + phaseDurationUs(phase), 0);
}

/** The measured duration of a profile, µs: its own, else its phases' (the schema leaves it unset then). */
export function measuredDurationUs(profile: { readonly duration?: number | undefined; readonly phases: readonly Phase[] }): number {
  return profile.duration ?? phasesDurationUs(profile.phases);
}
