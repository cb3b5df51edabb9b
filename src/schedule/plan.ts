import type { Distribution } from '../profile/distribution.ts';
import type { ClientSpec, MixEntry, Phase } from '../profile/schema.ts';
import { measuredDurationUs, phaseDurationUs } from '../profile/phases.ts';
import type { Profile } from '../profile/types.ts';
import { createKeyspace } from './keys.ts';
import { applyMultipliers, clip, phasesCurve, segmentMass } from './rate-curve.ts';
import { applyShifts, shiftEvents } from './shift.ts';
import type { Plan, PlannedPhase, RateSegment } from './types.ts';

/** A client with everything it sends resolved: kinds as indexes into `Plan.kinds`, sizes per kind. */
export interface ResolvedClient {
  spec: ClientSpec;
  segments: RateSegment[];
  arrivals: 'constant' | 'poisson';
  kinds: number[];
  weights: number[];
  batch: Distribution[];
  valueSize: Distribution[];
  /** The TTL each kind's writes set; undefined: none. */
  ttl: (Distribution | undefined)[];
}

/** Resolves a profile into per-client rate curves and request shapes. Pure. */
export function resolveClients(profile: Profile, kinds: string[]): ResolvedClient[] {
  const warmupUs = profile.warmup;
  const endUs = warmupUs + measuredDurationUs(profile);
  const totalShare = profile.clients.reduce((sum, c) => sum + (c.share ?? 0), 0);
  const resolved = profile.clients.map((spec) => {
    const curve = clientCurve(profile, spec, totalShare, endUs);
    const withMultipliers = applyMultipliers(curve, profile.multipliers, spec.name, warmupUs, endUs);
    const mix = spec.mix ?? profile.mix;
    return {
      spec,
      segments: withMultipliers,
      arrivals: spec.arrivals ?? profile.arrivals,
      kinds: mix.map((m) => kindIndex(kinds, m.kind)),
      weights: mix.map((m) => m.weight),
      batch: mix.map((m) => m.batch ?? spec.batch ?? profile.batch),
      valueSize: mix.map((m) => m.valueSize ?? spec.valueSize ?? profile.valueSize),
      ttl: mix.map((m) => m.ttl),
    };
  });
  return applyShifts(resolved, shiftEvents(profile), endUs);
}

/**
 * A client's curve on the run's time axis (0 = warm-up start). Share clients follow the profile's
 * phases; a client starting at 0 also sends through the warm-up at its first rate.
 */
function clientCurve(profile: Profile, spec: ClientSpec, totalShare: number, endUs: number): RateSegment[] {
  const warmupUs = profile.warmup;
  const startUs = warmupUs + spec.start;
  const stopUs = spec.end === undefined ? endUs : Math.min(endUs, warmupUs + spec.end);
  const clientWarmup = spec.start === 0 ? warmupUs : 0;
  let curve: RateSegment[];
  if (spec.share !== undefined) {
    const share = spec.share / totalShare;
    curve = phasesCurve(profile.phases, warmupUs, warmupUs, endUs).map((s) => ({ ...s, fromRps: s.fromRps * share, toRps: s.toRps * share }));
  } else if (spec.rate !== undefined) {
    curve = [{ startUs: startUs - clientWarmup, endUs, fromRps: spec.rate, toRps: spec.rate }];
  } else {
    curve = phasesCurve(spec.phases as Phase[], startUs, clientWarmup, endUs);
  }
  return clip(curve, startUs - clientWarmup, stopUs);
}

function kindIndex(kinds: string[], kind: string): number {
  const found = kinds.indexOf(kind);
  if (found >= 0) return found;
  kinds.push(kind);
  return kinds.length - 1;
}

export function allKinds(profile: Profile): string[] {
  const kinds: string[] = [];
  const add = (mix: MixEntry[]) => mix.forEach((m) => kindIndex(kinds, m.kind));
  add(profile.mix);
  profile.clients.forEach((c) => c.mix && add(c.mix));
  return kinds;
}

export function buildPlan(profile: Profile, kinds: string[], clients: ResolvedClient[]): Plan {
  const warmupUs = profile.warmup;
  const durationUs = measuredDurationUs(profile);
  const planned = clients.map((c) => ({
    name: c.spec.name,
    instances: c.spec.instances,
    segments: c.segments,
    expectedRequests: c.segments.reduce((sum, s) => sum + segmentMass(s), 0),
  }));
  const expectedRequests = planned.reduce((sum, c) => sum + c.expectedRequests, 0);
  const kindCounts = kinds.map(() => 0);
  clients.forEach((c, i) => {
    const totalWeight = c.weights.reduce((a, b) => a + b, 0);
    c.kinds.forEach((k, j) => (kindCounts[k]! += (planned[i]!.expectedRequests * c.weights[j]!) / totalWeight));
  });
  return {
    seed: profile.seed,
    warmupUs,
    durationUs,
    totalUs: warmupUs + durationUs,
    arrivals: profile.arrivals,
    phases: plannedPhases(profile.phases, warmupUs, durationUs),
    clients: planned,
    kinds,
    kindShares: kindCounts.map((n) => (expectedRequests > 0 ? n / expectedRequests : 0)),
    expectedRequests,
    keyspace: createKeyspace(profile.keys),
  };
}

function plannedPhases(phases: Phase[], warmupUs: number, durationUs: number): PlannedPhase[] {
  const out: PlannedPhase[] = [];
  if (warmupUs > 0) out.push({ label: 'warmup', startUs: 0, endUs: warmupUs });
  let t = warmupUs;
  for (const phase of phases) {
    const end = t + phaseDurationUs(phase);
    out.push({ label: describePhase(phase), startUs: t, endUs: end });
    t = end;
  }
  if (t < warmupUs + durationUs) out.push({ label: 'hold last rate', startUs: t, endUs: warmupUs + durationUs });
  return out;
}

export function describePhase(phase: Phase): string {
  switch (phase.type) {
    case 'steady':
      return `steady ${phase.rate} rps`;
    case 'ramp':
      return `ramp ${phase.from} → ${phase.to} rps`;
    case 'step':
      return `step ${phase.from} → ${phase.to} rps in ${phase.steps}`;
    case 'spike':
      return `spike ${phase.base} → ${phase.peak} rps`;
  }
}
