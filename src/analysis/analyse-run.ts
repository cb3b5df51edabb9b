import type { Profile } from '../profile/types.ts';
import type { RunResult } from '../recorder/result.ts';
import type { Plan } from '../schedule/types.ts';
import { judgeGenerator, type GeneratorJudgement } from './generator.ts';
import { limitsShown, type LimitShown } from './limits.ts';
import { judgeTargetSaturation, type TargetSaturation } from './saturation.ts';
import { realismFlags } from './realism/index.ts';
import { analyseRecovery, type TimelineAnalysis } from './recovery.ts';
import type { RealismFlag } from './realism/types.ts';
import { evaluateSlo, sloEvidenceOf, type SloVerdict } from './slo.ts';
import { runVerdict, verdictReasons, type Verdict } from './verdict.ts';

export const ANALYSIS_SCHEMA = 'stampede.analysis/1';

/**
 * What the analysis judged of one run, as written to analysis.json beside result.json (measured vs
 * judged). Every report, the exit code, qualify and compare read the verdict from here.
 */
export interface RunAnalysis {
  schema: typeof ANALYSIS_SCHEMA;
  verdict: Verdict;
  /** Why the verdict is what it is, one line each. */
  reasons: string[];
  slo: SloVerdict;
  /** Every way the test departed from reality, most severe first. */
  flags: RealismFlag[];
  /** Real targets only: whether the generator limited the run. */
  generator?: GeneratorJudgement;
  /** Real targets only, with the generator healthy: the target saturated at the test's concurrency (its pool all busy). */
  saturation?: TargetSaturation;
  interrupted: boolean;
  /** The thresholds behind the flags and the verdict, with their values. */
  limits: LimitShown[];
  /** The run's timeline events: time to recover from each, and the run before, during and after them. */
  timeline?: TimelineAnalysis;
}

/**
 * Judges a run: the SLO from the result's histograms, the realism flags from the result and the
 * profile, the generator's health, and the verdict they give together. Pure: the same result and
 * profile give the same analysis, whether the run just ended or was stored a year ago.
 */
export function analyseRun(result: RunResult, profile: Profile, options: { plan?: Plan } = {}): RunAnalysis {
  const slo = evaluateSlo(profile.slo, sloEvidenceOf(result));
  const flags = realismFlags({ profile, result, ...(options.plan && { plan: options.plan }) });
  const diverged = result.driver.model?.diverged ?? null;
  const verdict = runVerdict(slo, flags, result.interrupted, diverged);
  const timeline = analyseRecovery(result, profile);
  const generator = result.generator && judgeGenerator(result.generator, profile.generator);
  const saturation = generator?.saturated === false ? judgeTargetSaturation(result, profile.generator) : undefined;
  return {
    schema: ANALYSIS_SCHEMA,
    verdict,
    reasons: [...nothingMeasured(result), ...verdictReasons(verdict, slo, flags, result.interrupted, diverged), ...(saturation && verdict === 'FAIL' ? [saturation.text] : [])],
    slo,
    flags,
    ...(generator && { generator }),
    ...(saturation && { saturation }),
    interrupted: result.interrupted,
    limits: limitsShown(result.generator !== undefined, profile.generator, timeline !== undefined),
    ...(timeline && { timeline }),
  };
}

/** A run that measured no request says so first: every figure after it is empty, not good. */
function nothingMeasured(result: RunResult): string[] {
  const r = result.requests;
  if (r.ok + r.failed + r.dropped > 0) return [];
  const why = r.expected === 0 ? 'the plan sends none in the measured window (a rate of 0)' : `${r.sent} sent of ${r.expected} expected, none answered`;
  return [`no requests were measured: ${why}, so there is nothing to judge`];
}
