import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyseRun, type RunAnalysis } from '../analysis/analyse-run.ts';
import { checkPlan } from '../analysis/plan-check.ts';
import { createDriver } from '../driver/index.ts';
import type { Driver } from '../driver/types.ts';
import type { Profile } from '../profile/types.ts';
import { buildResult, type RunResult } from '../recorder/result.ts';
import { RunRecorder } from '../recorder/run-recorder.ts';
import { renderSummary } from '../report/summary.ts';
import {
  createRunDir,
  defaultRunDir,
  openIntervalLog,
  openLatencyLog,
  readLatencyLogOf,
  readRunFolder,
  RUN_FILES,
  writeAnalysis,
  writeReports,
  writeRunFolder,
} from '../run-folder/index.ts';
import { createSchedule } from '../schedule/index.ts';

export interface RunOptions {
  /** Output folder; default reports/<profile>/<UTC timestamp>/. */
  outDir?: string | undefined;
  reportsRoot?: string;
  /** Target override ("model" or a URL); default the profile's. */
  target?: string | undefined;
  intervalUs?: number | undefined;
  signal?: AbortSignal;
  driver?: Driver;
  /** Real targets: worker threads sending disjoint slices of the schedule (default 1: the main thread). */
  workers?: number | undefined;
  /** Skip report.md / report.html (qualify steps: the qualification has its own report). */
  reports?: boolean;
  /** Run a plan over the profile's limits anyway (see analysis/plan-check.ts). */
  force?: boolean | undefined;
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
 * Whatever the driver measured is written, also when the run was interrupted; result.json first.
 */
export async function runProfile(profile: Profile, options: RunOptions = {}): Promise<RunOutcome> {
  const target = options.target ?? profile.target;
  const schedule = createSchedule(profile);
  checkPlan(profile, schedule.plan, { intervalUs: options.intervalUs, target, force: options.force });
  const driver = options.driver ?? createDriver(target, { workers: options.workers });
  const startedAt = new Date();
  const dir = createRunDir(options.outDir ?? defaultRunDir(options.reportsRoot ?? 'reports', profile.name, startedAt));
  const hlog = openLatencyLog(dir);
  const intervalLog = openIntervalLog(dir);
  let result: RunResult;
  try {
    const recorder = new RunRecorder(schedule.plan, {
      intervalUs: options.intervalUs,
      startTimeMs: startedAt.getTime(),
      hlog: (chunk) => hlog.write(chunk),
      onInterval: (interval) => intervalLog.write(`${JSON.stringify(interval)}\n`),
    });
    const report = await driver.run({ profile, schedule, recorder, signal: options.signal ?? new AbortController().signal });
    recorder.flush();
    const finishedAt = new Date();
    const wall = { finishedAt: finishedAt.toISOString(), elapsedMs: finishedAt.getTime() - startedAt.getTime() };
    result = buildResult({ profile, plan: schedule.plan, target: driver.target, recorder, driver: report, startedAt: startedAt.toISOString(), wall });
  } finally {
    hlog.close();
    intervalLog.close();
  }
  const analysis = analyseRun(result, profile, { plan: schedule.plan });
  const summary = renderSummary(result, analysis);
  writeRunFolder(dir, { result, analysis, profile, summary });
  if (options.reports !== false) await renderReportsInto(dir, result, analysis);
  return { result, analysis, summary, dir };
}

/**
 * report.md and report.html of a run; the renderer (and its chart library) loads only here. The
 * interval log is read as it streams, already merged to the heatmap's columns.
 */
export async function renderReportsInto(dir: string, result: RunResult, analysis: RunAnalysis): Promise<void> {
  const { renderRunReports, HEATMAP_COLUMNS } = await import('../report/run-reports.ts');
  const latencyLog = await readLatencyLogOf(dir, Math.max(1, Math.ceil(result.intervals.count / HEATMAP_COLUMNS)));
  writeReports(dir, renderRunReports({ result, analysis, latencyLog }));
}

/**
 * A stored run's reports again (`stampede report <dir>`); a folder from before analysis.json is
 * judged now from its result and profile, and gets one. Returns report.md.
 */
export async function rerenderRun(dir: string): Promise<string> {
  const stored = readRunFolder(dir);
  let analysis = stored.analysis;
  if (!analysis) {
    if (!stored.profile) throw new Error(`${dir}: no analysis.json or profile.json to judge the run by`);
    analysis = analyseRun(stored.result, stored.profile);
    writeAnalysis(dir, analysis);
  }
  await renderReportsInto(dir, stored.result, analysis);
  return readFileSync(join(dir, RUN_FILES.reportMarkdown), 'utf8');
}
