import { sha256Hex } from '../profile/fingerprint.ts';
import type { Phase } from '../profile/schema.ts';
import type { Profile } from '../profile/types.ts';
import { allKinds, resolveClients } from '../schedule/plan.ts';
import { curveRateAt } from '../schedule/rate-curve.ts';
import { roundSignificant } from '../profile/units.ts';

export interface StepShape {
  /** Measured duration of the step, µs. */
  stepUs: number;
  warmupUs: number;
}

/** The highest rate of a phase list. */
function phasesPeak(phases: readonly Phase[]): number {
  return Math.max(0, ...phases.map((p) => (p.type === 'steady' ? p.rate : p.type === 'spike' ? Math.max(p.base, p.peak) : Math.max(p.from, p.to))));
}

/**
 * Each client's rate at the profile's busiest moment (multipliers left out: failover is qualified
 * separately, as N+1 arithmetic on the capacity). Ties go to the latest moment, which is where
 * profiles put the incident (the promotion, the spike).
 */
export function busiestMoment(profile: Profile): { totalRps: number; clientRps: number[] } {
  const clients = resolveClients({ ...profile, multipliers: [] }, allKinds(profile));
  const times = [...new Set(clients.flatMap((c) => c.segments.flatMap((s) => [s.startUs, Math.max(s.startUs, s.endUs - 1)])))]
    .filter((t) => t >= profile.warmup)
    .sort((a, b) => a - b);
  let best = { totalRps: 0, clientRps: clients.map(() => 0) };
  for (const t of times) {
    const clientRps = clients.map((c) => curveRateAt(c.segments, t));
    const totalRps = clientRps.reduce((a, b) => a + b, 0);
    if (totalRps >= best.totalRps) best = { totalRps, clientRps };
  }
  return best;
}

/** The rate the profile was written for: its total asked rate at the busiest moment. Qualification scales it. */
export function profilePeakRps(profile: Profile): number {
  return busiestMoment(profile).totalRps;
}

/**
 * One qualification step: the profile held at its busiest shape, scaled to `askedRps`. Every
 * client's rate is scaled by the same factor (so the mix of callers is kept), every client runs
 * for the whole step, named hot keys sit at their peak share from the first measured moment, and
 * time-window multipliers are dropped (the step's rate already is the load being qualified).
 */
export function stepProfile(profile: Profile, askedRps: number, shape: StepShape): Profile {
  const moment = busiestMoment(profile);
  const factor = moment.totalRps > 0 ? askedRps / moment.totalRps : 0;
  const steady = (rate: number): Phase[] => [{ type: 'steady', rate: roundSignificant(rate * factor, 6), duration: shape.stepUs }];
  const shareTotal = profile.clients.reduce((sum, c) => sum + (c.share ?? 0), 0);
  const sharedRps = profile.clients.reduce((sum, c, i) => sum + (c.share !== undefined ? moment.clientRps[i]! : 0), 0);
  const { source, ...rest } = profile;
  const scaled: Omit<Profile, 'source'> = {
    ...rest,
    warmup: shape.warmupUs,
    duration: shape.stepUs,
    // Share clients split the phase rate by share, so the phase carries their combined rate.
    phases: steady(shareTotal > 0 ? sharedRps : phasesPeak(profile.phases)),
    multipliers: [],
    clients: profile.clients.map((c, i) => {
      const { end: _end, phases: _phases, rate: _rate, ...client } = c;
      if (c.share !== undefined) return { ...client, start: 0 };
      return { ...client, start: 0, rate: roundSignificant(moment.clientRps[i]! * factor, 6) };
    }),
    keys: { ...profile.keys, hot: profile.keys.hot.map(({ halfLife: _h, ...h }) => ({ ...h, start: 0, rise: 0, hold: 0 })) },
  };
  const overrides = [...source.overrides, `qualify: ${askedRps} rps`];
  return { ...scaled, source: { ...source, sha256: sha256Hex(scaled), overrides } };
}
