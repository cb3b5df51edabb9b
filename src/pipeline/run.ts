import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateSlo, type SloEvidence } from '../analysis/slo.ts';
import { createDriver } from '../driver/index.ts';
import type { Driver } from '../driver/types.ts';
import type { Profile } from '../profile/types.ts';
import { buildResult, type RunResult } from '../recorder/result.ts';
import { RunRecorder } from '../recorder/run-recorder.ts';
import { writeRunReports } from '../report/artifacts.ts';
import type { Verdict } from '../realism/index.ts';
import { renderSummary } from '../report/summary.ts';
import { createSchedule } from '../schedule/index.ts';
import { defaultRunDir, ensureDir, writeRunArtifacts } from './artifacts.ts';

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
}

export interface RunOutcome {
  result: RunResult;
  summary: string;
  dir: string;
  /** The report's verdict: the SLO's, or INVALID when a realism flag says the measurement cannot carry one. */
  verdict: Verdict;
}

/**
 * profile → schedule → driver → recorder → result → SLO verdict → artifacts. Whatever the driver
 * measured is written, also when the run was interrupted.
 */
export async function runProfile(profile: Profile, options: RunOptions = {}): Promise<RunOutcome> {
  const target = options.target ?? profile.target;
  const driver = options.driver ?? createDriver(target, { workers: options.workers });
  const schedule = createSchedule(profile);
  const startedAt = new Date();
  const dir = ensureDir(options.outDir ?? defaultRunDir(options.reportsRoot ?? 'reports', profile.name, startedAt));
  const hlogFd = openSync(join(dir, 'latency.hlog'), 'w');
  try {
    const recorder = new RunRecorder(schedule.plan, {
      intervalUs: options.intervalUs,
      startTimeMs: startedAt.getTime(),
      hlog: (chunk) => writeSync(hlogFd, chunk),
    });
    const report = await driver.run({ profile, schedule, recorder, signal: options.signal ?? new AbortController().signal });
    recorder.flush();
    const slo = evaluateSlo(profile.slo, sloEvidence(recorder, schedule.plan.kinds, schedule.plan.clients.map((c) => c.name)));
    const finishedAt = new Date();
    const result = buildResult({
      profile,
      plan: schedule.plan,
      target: driver.target,
      recorder,
      driver: report,
      slo,
      startedAt: startedAt.toISOString(),
      wall: { finishedAt: finishedAt.toISOString(), elapsedMs: finishedAt.getTime() - startedAt.getTime() },
    });
    const summary = renderSummary(result);
    writeRunArtifacts(dir, result, summary);
    // report.md / report.html (and profile.json, which the realism flags read) are renderings of the artifacts above.
    const { verdict } = writeRunReports(dir, result, profile);
    return { result, summary, dir, verdict };
  } finally {
    closeSync(hlogFd);
  }
}

function sloEvidence(recorder: RunRecorder, kinds: string[], clients: string[]): SloEvidence {
  return {
    latency: ({ kind, client }) => {
      if (kind !== undefined && client !== undefined) return undefined;
      if (kind !== undefined) return recorder.byKind[kinds.indexOf(kind)]?.latency;
      if (client !== undefined) return recorder.byClient[clients.indexOf(client)]?.latency;
      return recorder.all.latency;
    },
    requests: recorder.all.latency.totalCount + recorder.droppedCount,
    failed: recorder.failed.latency.totalCount + recorder.droppedCount,
  };
}
