import type { Plan } from '../../schedule/types.ts';
import type { Protocol, TargetSpec } from '../../profile/protocols/registry.ts';
import type { Profile } from '../../profile/types.ts';
import type { RunResult } from '../../recorder/result.ts';
import type { FlagId, Severity } from './registry.ts';

export type { FlagId, Severity } from './registry.ts';

/** One way the test setup departs from reality. */
export interface RealismFlag {
  /** Stable id, e.g. "generator-bottleneck" (registry.ts); what tests and CI filters refer to. */
  id: FlagId;
  severity: Severity;
  /** One line: what is unrealistic. */
  title: string;
  /** The measured or configured figure that raised it. */
  evidence: string;
  /** The incident in shared/incidents.md it echoes. */
  incident: string;
  /** What to change in the profile or setup. */
  fix: string;
  /**
   * What this one is about, for a flag raised more than once in one outcome: a qualification step
   * ("step 600 rps"), an SLO slice ("p99 (kind get)"), a cache. With the id it names the flag's
   * JUnit case, stable from night to night where the evidence's figures are not.
   */
  scope?: string;
}

/**
 * What the flags read. Without `result` only the flags knowable before a run are raised
 * (`stampede lint`); `plan` gives expected request counts; `qualification` says a capacity figure
 * is being claimed and whether failover headroom was computed for it.
 */
export interface RealismInput {
  profile: Profile;
  plan?: Plan;
  result?: RunResult;
  qualification?: { failoverComputed: boolean };
}

export type FlagRule = (input: RealismInput) => RealismFlag[];

/** The input as run: the target the result names (else the profile's), parsed, and its protocol, which the profile's rules ask. */
export interface RealismContext extends RealismInput {
  target: TargetSpec;
  protocol: Protocol;
}

/** A rule that needs to know what the run sent to. */
export type ProfileRule = (input: RealismContext) => RealismFlag[];

export const SEVERITY_ORDER: Record<Severity, number> = { invalid: 0, warn: 1, info: 2 };
