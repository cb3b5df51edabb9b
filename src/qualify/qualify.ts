import { join } from 'node:path';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import { analyseCapacity, bracketOf, completeSteps, judgeRates } from '../analysis/capacity.ts';
import { checkPlan, planFigures, planRefusals } from '../analysis/plan-check.ts';
import type { PlanFigures } from '../analysis/plan-refused.ts';
import { STABLE_TAIL_SAMPLES } from '../analysis/limits.ts';
import { QUALIFICATION_SCHEMA, type CapacityAnalysis, type Qualification, type SearchSummary, type StepOutcome } from '../analysis/qualification.ts';
import { qualificationVerdict } from '../analysis/qualification-verdict.ts';
import { runProfile, type RunOptions } from '../pipeline/run.ts';
import { createRunDir, jsonText, Outputs, runRenderings } from '../run-folder/index.ts';
import type { Profile } from '../profile/types.ts';
import { targetOf, type TargetSpec } from '../profile/protocols/registry.ts';
import { requireTopologyFor } from '../profile/topology-required.ts';
import { realismFlags } from '../analysis/realism/index.ts';
import { searchFlags } from '../analysis/realism/search-flags.ts';
import { spoiledInterval } from '../analysis/spoiled-interval.ts';
import { fellShort, RESULT_RULES } from '../analysis/realism/result-flags.ts';
import { SEVERITY_ORDER, type RealismFlag } from '../analysis/realism/types.ts';
import type { RunResult } from '../recorder/result.ts';
import { decodeFromCompressedBase64, type Histogram } from '../recorder/histograms.ts';
import { quantileWithInterval } from '../analysis/quantile-ci.ts';
import { createSchedule } from '../schedule/index.ts';
import { nextStep, type SearchMove, type SearchOptions } from './search.ts';
import { profilePeakRps, stepProfile, type StepShape } from './step-profile.ts';

export interface QualifyOptions extends StepShape, Partial<SearchOptions> {
  outDir: string;
  /** Parsed, or as written (parsed once, here); default the profile's. */
  target?: TargetSpec | string | undefined;
  intervalUs?: number | undefined;
  signal?: AbortSignal;
  /** Called after each step (progress output), with the search's next move (a re-run of this step, another rate, or why it stops). */
  onStep?: (step: StepOutcome, index: number, next: SearchMove) => void;
  /** Called once per closed interval within a step (live progress, metrics). */
  onInterval?: RunOptions['onInterval'];
  driver?: RunOptions['driver'];
  /** Run a qualification over the profile's limits anyway. */
  force?: boolean | undefined;
  /** Where `${NAME}` in http request templates is read from (see RunOptions.env). */
  env?: RunOptions['env'];
  /** Where a file the disk refuses is recorded (see RunOptions.outputs); without it, FilesLostError names them at the end. */
  outputs?: Outputs | undefined;
}

/** A step is stretched up to this many times its duration to collect enough samples. */
export const MAX_STEP_STRETCH = 30;

/** The search defaults: start at half the expected peak, ×1.5 per step, bisect to 5%, run each deciding rate twice. */
export function searchOptions(expectedPeakRps: number, given: Partial<SearchOptions>): SearchOptions {
  return {
    startRps: given.startRps ?? expectedPeakRps / 2,
    growth: given.growth ?? 1.5,
    resolution: given.resolution ?? 0.05,
    // Room for the bracket's repeats and a re-run or two on top of growing and bisecting.
    maxSteps: given.maxSteps ?? 16,
    minRps: given.minRps ?? Math.max(expectedPeakRps / 256, 0.01),
    repeats: given.repeats ?? 2,
  };
}

/**
 * A step passes when every SLO check held on enough evidence: a percentile read from a handful of
 * samples beyond it (an `invalid` too-few-samples flag) is not a pass, or slow rare requests would
 * "pass" at low rates by luck. A failing step whose failure sits in one interval says so (`spoiledBy`).
 */
export function stepOutcome(result: RunResult, analysis: RunAnalysis, dir: string, slo: Profile['slo']): StepOutcome {
  const completed = result.requests.ok + result.requests.failed;
  const failed = result.requests.failed + result.requests.dropped;
  const unproven = analysis.flags.filter((f) => f.id === 'too-few-samples' && f.severity === 'invalid');
  const spoiledBy = unproven.length === 0 && !result.interrupted ? spoiledInterval(result, slo, analysis.slo.checks) : undefined;
  const generatorReasons = [
    ...(analysis.generator?.saturated ? analysis.generator.reasons : []),
    ...(fellShort(result) ? [`achieved ${Math.round(result.rate.achievedRps)} of ${Math.round(result.rate.askedRps)} rps asked`] : []),
  ];
  return {
    askedRps: result.rate.askedRps,
    achievedRps: result.rate.achievedRps,
    pass: analysis.slo.pass && unproven.length === 0,
    failedChecks: [...analysis.slo.checks.filter((c) => !c.pass).map((c) => c.name), ...unproven.map((f) => f.title)],
    latencyUs: { p50: result.latencyUs.p50, p99: result.latencyUs.p99, p999: result.latencyUs.p999, max: result.latencyUs.max },
    p99IntervalUs: p99Interval(result),
    requests: completed,
    failed,
    errorRate: completed + result.requests.dropped > 0 ? failed / (completed + result.requests.dropped) : 0,
    generatorLimited: generatorReasons.length > 0,
    ...(generatorReasons.length > 0 && { generatorReasons }),
    ...(analysis.saturation && { targetSaturation: analysis.saturation.text }),
    durationMs: result.durationMs,
    dir,
    ...(result.interrupted && { interrupted: true }),
    ...(spoiledBy && { spoiledBy }),
  };
}

/**
 * Qualifies a profile: runs steps of rising offered rate (each its own run folder under
 * `<outDir>/steps/`), stops when the search is done, and writes qualification.json. The expected
 * peak is production.peakRps, else the profile's own peak rate. A step whose files the disk would
 * not all take stops the search there, as a signal would: the next steps could not be kept either.
 */
export async function qualify(profile: Profile, options: QualifyOptions): Promise<Qualification> {
  const target = targetOf(options.target ?? profile.target);
  requireTopologyFor(profile, target);
  const startedAt = new Date();
  const expectedPeakRps = profile.production?.peakRps ?? profilePeakRps(profile);
  const search = searchOptions(expectedPeakRps, options);
  checkQualificationPlan(profile, search, options, target);
  const steps: StepOutcome[] = [];
  const results: RunResult[] = [];
  createRunDir(options.outDir);
  const outputs = options.outputs ?? new Outputs();
  const lostBefore = outputs.lost.length;
  let move: SearchMove = nextStep(steps, search);
  let stoppedByLimits: string | undefined;
  while ('rps' in move && !options.signal?.aborted && outputs.lost.length === lostBefore) {
    const rate = move.rps;
    const again = move.purpose === 'repeat' || move.purpose === 'rerun' ? `-${move.purpose}` : '';
    const dir = join('steps', `${String(steps.length + 1).padStart(2, '0')}-${rate}rps${again}`);
    const shares = sliceShares(stepProfile(profile, rate, options));
    const step = stepProfile(profile, rate, { ...options, stepUs: stepDurationUs(profile, rate, options.stepUs, shares) });
    stoppedByLimits = options.force ? undefined : overLimits(step, rate, options, target);
    if (stoppedByLimits) break;
    const { result, analysis } = await runProfile(step, {
      outDir: join(options.outDir, dir),
      target,
      intervalUs: options.intervalUs,
      ...(options.signal && { signal: options.signal }),
      ...(options.driver && { driver: options.driver }),
      onInterval: options.onInterval,
      runId: startedAt.toISOString(),
      env: options.env,
      outputs,
      // What the search measured before comes first: the earlier steps' reports give way to this step's result.json.
      expendable: steps.flatMap((s) => runRenderings(join(options.outDir, s.dir))),
      // Checked just above, so that a step over the limits ends the search instead of the qualification.
      force: true,
    });
    const outcome: StepOutcome = {
      ...stepOutcome(result, analysis, dir, step.slo),
      askedRps: rate,
      purpose: move.purpose,
      ...(move.rerunOf !== undefined && { rerunOf: move.rerunOf }),
    };
    steps.push(outcome);
    results.push(result);
    move = nextStep(steps, search);
    options.onStep?.(outcome, steps.length - 1, move);
  }
  // Stopped by a signal with steps still to run, or with a step cut short: only the complete steps are judged.
  const interrupted = ('rps' in move && stoppedByLimits === undefined) || steps.some((s) => s.interrupted);
  const analysis = analyseCapacity(steps, expectedPeakRps, profile.production?.dataCentres);
  const stopped = stoppedByLimits ?? ('stop' in move ? move.stop : interruptedBy(outputs.lost.length > lostBefore ? steps.length : undefined));
  const summary = searchSummary(steps, search, stopped);
  // Warm-up and run-length flags judge the steps as run, so the profile rules see a step's shape.
  const asRun = { ...stepProfile(profile, expectedPeakRps, options), target: target.text };
  const flags = qualificationFlags(asRun, steps, results, analysis);
  flags.push(...searchFlags(steps, summary));
  flags.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  const cut = steps.find((s) => s.interrupted);
  const { verdict, reasons } = qualificationVerdict(analysis, flags, interrupted ? { completeSteps: completeSteps(steps).length, cutStepRps: cut?.askedRps } : undefined);
  if (stoppedByLimits) reasons.push(stoppedByLimits);
  else if (!interrupted) reasons.push(`the search stopped: ${stopped}`);
  const finishedAt = new Date();
  const qualification: Qualification = {
    schema: QUALIFICATION_SCHEMA,
    profile: { name: profile.name, description: profile.description, file: profile.source.file, sha256: profile.source.sha256, overrides: profile.source.overrides },
    target: target.text,
    seed: profile.seed,
    ...analysis,
    peakSource: profile.production?.peakRps !== undefined ? 'production.peakRps' : 'profile peak',
    step: { durationMs: options.stepUs / 1000, warmupMs: options.warmupUs / 1000 },
    steps,
    search: summary,
    interrupted,
    ...(sloP99Us(profile) !== undefined && { sloP99Us: sloP99Us(profile) }),
    sloLatency: sloLatency(profile),
    verdict,
    reasons,
    flags,
    startedAt: startedAt.toISOString(),
    wall: { finishedAt: finishedAt.toISOString(), elapsedMs: finishedAt.getTime() - startedAt.getTime() },
  };
  // The qualification's own file first: the steps' reports give way to it.
  const renderings = steps.flatMap((s) => runRenderings(join(options.outDir, s.dir)));
  outputs.writeMakingRoom(join(options.outDir, 'qualification.json'), () => jsonText(qualification), renderings);
  if (options.outputs === undefined) outputs.throwIfLost();
  return qualification;
}

/** Why a search stopped before it was done: a signal, or the step (1-based) whose files the disk would not all take. */
function interruptedBy(lostAtStep: number | undefined): string {
  if (lostAtStep === undefined) return 'interrupted: stopped by a signal before the search was done';
  return `interrupted: the disk did not take all of step ${lostAtStep}’s files, so the search stopped there`;
}

/**
 * The qualification's plan, refused before the first step when over the profile's limits: the first
 * step's memory, batch and intervals, and the time of maxSteps steps at the longest a step can be
 * (MAX_STEP_STRETCH × the step). Later steps are checked one by one as the search reaches them
 * (overLimits): the search is adaptive, so the rates it will try are not known in advance.
 */
export function checkQualificationPlan(profile: Profile, search: SearchOptions, options: QualifyOptions, target: TargetSpec): PlanFigures {
  const first = stepProfile(profile, search.startRps, {
    ...options,
    stepUs: stepDurationUs(profile, search.startRps, options.stepUs, sliceShares(stepProfile(profile, search.startRps, options))),
  });
  const durationS = (search.maxSteps * (MAX_STEP_STRETCH * options.stepUs + options.warmupUs)) / 1e6;
  return checkPlan(first, createSchedule(first).plan, { intervalUs: options.intervalUs, target, runs: search.maxSteps, durationS, force: options.force });
}

/** Why the step at `rate` would be over the profile's limits, or undefined when it is not. */
function overLimits(step: Profile, rate: number, options: QualifyOptions, target: TargetSpec): string | undefined {
  const refusals = planRefusals(planFigures(step, createSchedule(step).plan, { intervalUs: options.intervalUs, target }), step.limits);
  if (refusals.length === 0) return undefined;
  return `the search stopped before the step at ${rate} rps: ${refusals.map((r) => r.text).join('; ')} (raise limits: in the profile, or --force)`;
}

/** The search as it ran: its settings, the bracket, every rate's judgement and why it stopped. */
function searchSummary(steps: readonly StepOutcome[], search: SearchOptions, stopped: string): SearchSummary {
  const rates = judgeRates(steps);
  const { pass, fail, failedBy } = bracketOf(rates);
  return {
    repeats: search.repeats,
    resolution: search.resolution,
    maxSteps: search.maxSteps,
    bracket: { ...(pass !== undefined && { passRps: pass }), ...(fail !== undefined && { failRps: fail }), ...(failedBy && { failedBy }) },
    rates,
    stopped,
  };
}

/**
 * The claim rests on the step at capacity, so its measured flags count; the generator and
 * coordinated-omission flags of any step also count (a step the generator limited measured the
 * generator). A generator flag cannot spoil the claim, and is a warning, when its step was set
 * aside (a re-run the generator kept up with replaced it), or the step is above the capacity and
 * the target already failed below it or the capacity covers the demand anyway (the search bisected
 * below it). Profile flags are judged on the qualified profile itself.
 */
function qualificationFlags(profile: Profile, steps: readonly StepOutcome[], results: readonly RunResult[], analysis: CapacityAnalysis): RealismFlag[] {
  const atCapacity = [...steps.keys()].filter((i) => steps[i]!.pass && !steps[i]!.interrupted).sort((a, b) => steps[b]!.askedRps - steps[a]!.askedRps)[0];
  const targetFailedRps = Math.min(...steps.filter((s) => !s.interrupted && !s.pass && !s.generatorLimited).map((s) => s.askedRps));
  const demandRps = analysis.failover?.demandRps ?? analysis.expectedPeakRps;
  const setAside = new Set(judgeRates(steps).flatMap((r) => r.setAside ?? []));
  const aboveCapacity = (rate: number) => rate > analysis.capacityRps && (rate > targetFailedRps || (analysis.capacityRps > 0 && analysis.capacityRps >= demandRps));
  const measured: RealismFlag[] = [];
  results.forEach((result, i) => {
    const step = steps[i]!;
    if (step.interrupted) return; // a step cut short is no evidence, for or against
    const input = { profile, result };
    for (const rule of RESULT_RULES) {
      for (const f of rule(input)) {
        if (i !== atCapacity && f.id !== 'generator-bottleneck' && f.id !== 'coordinated-omission') continue;
        const generator = f.id === 'generator-bottleneck' && f.severity === 'invalid';
        const why = !generator
          ? ''
          : setAside.has(i + 1)
            ? ' (re-run without the generator limit: set aside)'
            : aboveCapacity(step.askedRps)
              ? ' (above the capacity: the search bisected below it)'
              : '';
        const at = `step ${Math.round(step.askedRps)} rps`;
        measured.push({ ...f, ...(why && { severity: 'warn' as const }), evidence: `${at}: ${f.evidence}${why}`, scope: f.scope ? `${at}, ${f.scope}` : at });
      }
    }
  });
  const fromProfile = realismFlags({ profile, qualification: { failoverComputed: analysis.failover !== undefined } });
  const seen = new Set<string>();
  return [...measured, ...fromProfile]
    .filter((f) => {
      const key = `${f.id}\0${f.evidence}`;
      return seen.has(key) ? false : (seen.add(key), true);
    })
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

/** The step's p99 with its 99% confidence interval, from the measured histogram: how far a step's p99 can be trusted. */
function p99Interval(result: RunResult): { lowUs: number; highUs: number } {
  const q = quantileWithInterval(decodeFromCompressedBase64(result.histograms.latency) as Histogram, 99);
  return { lowUs: q.lowUs, highUs: q.highUs };
}

/** Every latency limit of the SLO, labelled as the SLO table names it (`p99.9 kind get`). */
function sloLatency(profile: Profile): { label: string; maxUs: number }[] {
  return profile.slo.latency.map((c) => ({
    label: [`p${c.percentile}`, c.kind !== undefined ? `kind ${c.kind}` : '', c.client !== undefined ? `client ${c.client}` : ''].filter(Boolean).join(' '),
    maxUs: c.max,
  }));
}

function sloP99Us(profile: Profile): number | undefined {
  return profile.slo.latency.find((c) => c.percentile === 99 && c.kind === undefined && c.client === undefined)?.max;
}

/**
 * A step lasts `stepUs`, or longer when its rate would give too few samples for the SLO's highest
 * percentile (≥ STABLE_TAIL_SAMPLES beyond it), up to MAX_STEP_STRETCH × stepUs: a slow step costs
 * little on the model (work grows with requests, not virtual time) and stays bounded on a real target.
 */
export function stepDurationUs(profile: Profile, rateRps: number, stepUs: number, shares: SliceShares = WHOLE_TRAFFIC): number {
  if (rateRps <= 0) return stepUs;
  // A check on a kind or client sees only that slice's share of the rate, so a rare kind needs a longer step.
  const requests = Math.max(
    0,
    ...profile.slo.latency.map((c) => {
      const share = Math.min(shares.kind(c.kind), shares.client(c.client));
      // Whole requests first: 1 − 0.999 is not exact in binary, and 50,000.0000001 requests is 50,000.
      const inSlice = Math.ceil(STABLE_TAIL_SAMPLES / (1 - c.percentile / 100) - 1e-6);
      return share > 0 ? inSlice / share : 0;
    }),
  );
  if (requests === 0) return stepUs;
  const neededUs = Math.ceil((requests * 1e6) / rateRps);
  return Math.min(Math.max(stepUs, neededUs), MAX_STEP_STRETCH * stepUs);
}

/** The share of a step's traffic in an SLO check's slice (1 for the whole traffic). */
export interface SliceShares {
  kind(kind: string | undefined): number;
  client(client: string | undefined): number;
}

const WHOLE_TRAFFIC: SliceShares = { kind: () => 1, client: () => 1 };

/** Expected shares of each kind and client in a step, from its plan. */
export function sliceShares(step: Profile): SliceShares {
  const plan = createSchedule(step).plan;
  const total = plan.expectedRequests;
  return {
    kind: (kind) => (kind === undefined ? 1 : (plan.kindShares[plan.kinds.indexOf(kind)] ?? 0)),
    client: (client) => (client === undefined || total === 0 ? 1 : (plan.clients.find((c) => c.name === client)?.expectedRequests ?? 0) / total),
  };
}
