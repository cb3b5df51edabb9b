import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { analyseRun, type RunAnalysis } from '../analysis/analyse-run.ts';
import { checkPlan } from '../analysis/plan-check.ts';
import { InputFileError } from '../files/input-file.ts';
import { RunStartError } from '../driver/errors.ts';
import { createDriver } from '../driver/index.ts';
import type { Driver } from '../driver/types.ts';
import { ProfileError } from '../profile/issues.ts';
import { resolveSecrets, type SecretEnvironment } from '../profile/secrets.ts';
import { protocolOf, targetOf, type TargetSpec } from '../profile/protocols/registry.ts';
import { requireMemcachedKeysFor } from '../profile/memcached-keys.ts';
import { requireTopologyFor } from '../profile/topology-required.ts';
import type { Profile } from '../profile/types.ts';
import { checkTimeline, describeTimeline, type TimelineStep } from '../driver/timeline/steps.ts';
import { buildResult, type RunResult } from '../recorder/result.ts';
import { gaugeCatalog, type GaugeCatalog } from '../recorder/gauges.ts';
import { RunRecorder } from '../recorder/run-recorder.ts';
import { renderSummary } from '../report/summary.ts';
import {
  type ArtifactWriteError,
  createNewRunDir,
  createRunDir,
  defaultRunDir,
  openIntervalLog,
  openLatencyLog,
  Outputs,
  readLatencyLogOf,
  readRunFolder,
  type RenderedReports,
  RUN_FILES,
  writeAnalysis,
  writeReports,
  writeRunFolder,
} from '../run-folder/index.ts';
import { createSchedule, type Schedule } from '../schedule/index.ts';
import { segmentSchedule, WHOLE, type Segment } from '../schedule/segment.ts';
import { liveInterval, type LiveObserver, type LiveRun } from './live.ts';

export interface RunOptions {
  /** Output folder; default reports/<profile>/<UTC timestamp>/. */
  outDir?: string | undefined;
  reportsRoot?: string;
  /** Target override, parsed (the CLI's --target) or as written ("model" or a URL; parsed once, here); default the profile's. */
  target?: TargetSpec | string | undefined;
  intervalUs?: number | undefined;
  signal?: AbortSignal;
  driver?: Driver;
  /** Real targets: worker threads sending disjoint slices of the schedule (default 1: the main thread). */
  workers?: number | undefined;
  /** Skip report.md / report.html (qualify steps: the qualification has its own report). */
  reports?: boolean;
  /** Called once per closed interval with a plain-data snapshot (progress lines, metrics). */
  onInterval?: LiveObserver | undefined;
  /** The run's id in those snapshots (default its start time): a qualification names its steps with its own. */
  runId?: string | undefined;
  /** Run a plan over the profile's limits anyway (see analysis/plan-check.ts). */
  force?: boolean | undefined;
  /** Send only this segment of the schedule (`--segment i/N`: one host of several; `stampede merge` joins them). */
  segment?: Segment | undefined;
  /**
   * The requests to send, instead of the profile's own schedule (`trace replay`: a trace's requests
   * at their times). The profile still gives everything else — target settings, SLO, topology — and
   * should describe this traffic, since the folder's files judge the run by it. Sent whole, from one
   * thread: not with `segment` or `workers`, which slice the profile's schedule.
   */
  schedule?: Schedule | undefined;
  /** Wall-clock start shared by every segment (`--start-at`, epoch ms): the run's clock origin. */
  startAtMs?: number | undefined;
  /**
   * A shared start decided at run time instead (`--barrier`: when every segment has arrived), epoch
   * ms: awaited once the profile, its secrets, plan and timeline are checked — a segment that would
   * refuse them refuses before the others wait for it — and before the run folder or any connection.
   */
  awaitStart?: ((signal: AbortSignal) => Promise<number>) | undefined;
  /** Where `${NAME}` in http request templates is read from (the CLI passes process.env); see profile/secrets.ts. */
  env?: SecretEnvironment | undefined;
  /** Let the timeline's exec events run their commands (`--allow-exec`); without it a real run with one is refused. */
  allowExec?: boolean | undefined;
  /** Told the timeline's steps, one line each, once it is checked and before any traffic. */
  onTimeline?: ((lines: string[]) => void) | undefined;
  /**
   * Where a file the disk refuses is recorded (the CLI names them all and exits 3). Without it, the
   * run still writes every file it can, then throws FilesLostError naming those it could not.
   */
  outputs?: Outputs | undefined;
  /** Files outside the run folder that give way to its result.json on a full disk (a qualification's earlier steps' reports), least needed first. */
  expendable?: readonly string[] | undefined;
}

export interface RunOutcome {
  result: RunResult;
  analysis: RunAnalysis;
  summary: string;
  dir: string;
}

/**
 * profile → schedule → plan check → driver → recorder → result → analysis → run folder. A plan over
 * the profile's limits is refused before any traffic or folder (PlanRefusedError) unless `force`.
 * Whatever the driver measured is written, also when the run was interrupted; result.json first. A disk that stops taking the interval logs stops the run (as an interruption would);
 * every file is still tried, and each the disk refused (or that gave way to result.json) is recorded in `outputs`.
 */
export async function runProfile(profile: Profile, options: RunOptions = {}): Promise<RunOutcome> {
  const target = targetOf(options.target ?? profile.target);
  requireTopologyFor(profile, target);
  requireMemcachedKeysFor(profile, target);
  const sent = profileToSend(profile, target, options.env ?? {});
  const schedule = scheduleOf(profile, options);
  checkPlan(profile, schedule.plan, { intervalUs: options.intervalUs, target, force: options.force });
  const steps = announceTimeline(profile, target, options);
  const startAtMs = options.startAtMs ?? (await options.awaitStart?.(options.signal ?? new AbortController().signal));
  const driver = options.driver ?? createDriver(target, { workers: options.workers, startAtEpochMs: startAtMs });
  const startedAt = new Date(startAtMs ?? Date.now());
  const dir = options.outDir !== undefined ? createRunDir(options.outDir) : createNewRunDir(defaultRunDir(options.reportsRoot ?? 'reports', profile.name, startedAt));
  const stop = new AbortController();
  const stopRun = () => stop.abort();
  if (options.signal?.aborted) stop.abort();
  options.signal?.addEventListener('abort', stopRun, { once: true });
  // A real target's logs are written off the sending thread; the model's in step with its virtual clock.
  const logMode = protocolOf(target).simulated ? 'sync' : 'async';
  const hlog = openLatencyLog(dir, stopRun, logMode);
  const intervalLog = openIntervalLog(dir, stopRun, logMode);
  let result: RunResult;
  try {
    let gauges: GaugeCatalog = {};
    const observer = options.onInterval;
    const run = liveRun(profile, driver.target, startedAt, options);
    const recorder: RunRecorder = new RunRecorder(schedule.plan, {
      intervalUs: options.intervalUs,
      startTimeMs: startedAt.getTime(),
      hlog: (chunk) => hlog.write(chunk),
      onInterval: (interval) => {
        intervalLog.write(`${JSON.stringify(interval)}\n`);
        observer?.(liveInterval(recorder, schedule.plan, interval, gauges, run, steps));
      },
    });
    const declareGauges = (specs: Parameters<typeof gaugeCatalog>[0]) => {
      gauges = gaugeCatalog(specs);
      recorder.digest.declareGauges(gauges);
    };
    const report = await driver.run({ profile: sent, schedule, recorder, signal: stop.signal, declareGauges });
    recorder.flush();
    const finishedAt = new Date();
    const wall = { finishedAt: finishedAt.toISOString(), elapsedMs: finishedAt.getTime() - startedAt.getTime() };
    const segment = options.segment && { ...options.segment, ...(startAtMs !== undefined && { startAt: startedAt.toISOString() }) };
    result = buildResult({ profile, plan: schedule.plan, target: driver.target, recorder, driver: report, startedAt: startedAt.toISOString(), wall, segment });
  } catch (error) {
    // A run that could not start (or whose driver refused the profile's input, e.g. an unreadable
    // TLS file) measured nothing: it leaves no folder (or, in one the caller named, no log).
    if (error instanceof RunStartError || error instanceof ProfileError) await discardUnstartedRun(dir, [hlog, intervalLog], options.outDir === undefined);
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', stopRun);
    await Promise.all([hlog.close(), intervalLog.close()]);
  }
  const outputs = options.outputs ?? new Outputs();
  for (const log of [hlog, intervalLog]) if (log.failure) outputs.lose(log.path, logCut(log.failure, result.interrupted));
  const analysis = analyseRun(result, profile, { plan: schedule.plan });
  const summary = renderSummary(result, analysis);
  const written = writeRunFolder(dir, { result, analysis, profile, summary }, outputs, options.expendable);
  if (options.reports !== false) await renderReportsInto(dir, written, analysis, outputs);
  if (options.outputs === undefined) outputs.throwIfLost();
  return { result: written, analysis, summary, dir };
}

/** The schedule the run sends: the one given, else the profile's (its segment of it). */
function scheduleOf(profile: Profile, options: RunOptions): Schedule {
  if (options.schedule === undefined) return segmentSchedule(createSchedule(profile), options.segment ?? WHOLE);
  if (options.segment !== undefined || (options.workers ?? 1) > 1) throw new RunStartError('a given schedule is sent whole from one thread: not with a segment or worker threads');
  return options.schedule;
}

/** Why a streamed log is not whole: the disk refused it, it keeps the intervals before, and (unless the run was ending anyway) the run stopped there. */
function logCut(failure: ArtifactWriteError, stopped: boolean): string {
  return `${failure.reason}: cut after its last whole interval${stopped ? ' and the run stopped there' : ''}`;
}

function liveRun(profile: Profile, target: string, startedAt: Date, options: RunOptions): LiveRun {
  const { index, count } = options.segment ?? WHOLE;
  return { profile: profile.name, id: options.runId ?? startedAt.toISOString(), segment: `${index}/${count}`, target };
}

/**
 * The profile the driver sends: on an http target its `${NAME}` references read from `env` (a
 * missing one is a ProfileError naming it, before any folder). Only the driver gets it: every
 * file is written from `profile`, which holds the references.
 */
function profileToSend(profile: Profile, target: TargetSpec, env: SecretEnvironment): Profile {
  return protocolOf(target).resolvesSecrets ? resolveSecrets(profile, env) : profile;
}

/** Refuses a timeline the target cannot play (TimelineRefusedError, exit 2), tells the caller its steps, and returns them. */
function announceTimeline(profile: Profile, target: TargetSpec, options: RunOptions): TimelineStep[] {
  const events = profile.topology?.timeline ?? [];
  if (events.length === 0) return [];
  const steps = checkTimeline({ events, target, clients: profile.clients.map((c) => c.name) }, { allowExec: options.allowExec === true, workers: options.workers ?? 1 });
  options.onTimeline?.(describeTimeline(steps, target));
  return steps;
}

async function discardUnstartedRun(dir: string, logs: { close(): Promise<void> }[], ownFolder: boolean): Promise<void> {
  await Promise.all(logs.map((log) => log.close()));
  if (ownFolder) rmSync(dir, { recursive: true, force: true });
  else for (const name of [RUN_FILES.latencyLog, RUN_FILES.intervals]) rmSync(join(dir, name), { force: true });
}

/**
 * report.md and report.html of a run, returned as written through `outputs`; the renderer (and its
 * chart library) loads only here. The interval log is read as it streams, already merged to the
 * heatmap's columns.
 */
export async function renderReportsInto(dir: string, result: RunResult, analysis: RunAnalysis, outputs: Outputs): Promise<RenderedReports> {
  const { renderRunReports, HEATMAP_COLUMNS } = await import('../report/run-reports.ts');
  const latencyLog = await readLatencyLogOf(dir, Math.max(1, Math.ceil(result.intervals.count / HEATMAP_COLUMNS)));
  const reports = renderRunReports({ result, analysis, latencyLog });
  writeReports(dir, reports, outputs);
  return reports;
}

/**
 * A stored run's reports again (`stampede report <dir>`); a folder from before analysis.json is
 * judged now from its result and profile, and gets one. Returns report.md.
 */
export async function rerenderRun(dir: string, outputs: Outputs): Promise<string> {
  const stored = readRunFolder(dir);
  let analysis = stored.analysis;
  if (!analysis) {
    if (!stored.profile) throw new InputFileError(join(dir, RUN_FILES.analysis), 'no such file, nor a profile.json to judge the run by again');
    analysis = analyseRun(stored.result, stored.profile);
    writeAnalysis(dir, analysis, outputs);
  }
  return (await renderReportsInto(dir, stored.result, analysis, outputs)).markdown;
}
