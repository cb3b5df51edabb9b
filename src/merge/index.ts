import { resolve } from 'node:path';
import { analyseRun, type RunAnalysis } from '../analysis/analyse-run.ts';
import { judgeGenerator } from '../analysis/generator.ts';
import { renderReportsInto } from '../pipeline/run.ts';
import { mergeRecorderParts } from '../recorder/merge.ts';
import { buildResult, type MergedSegment, type RunResult } from '../recorder/result.ts';
import { RunRecorder } from '../recorder/run-recorder.ts';
import { renderSummary } from '../report/summary.ts';
import { createRunDir, openIntervalLog, openLatencyLog, Outputs, writeRunFolder } from '../run-folder/index.ts';
import { createSchedule } from '../schedule/index.ts';
import { SegmentMergeError } from './errors.ts';
import { mergeSegmentIntervals } from './intervals.ts';
import { checkSegments, readSegments, type SegmentRun } from './segments.ts';
import { mergedDriverReport, partOfResult } from './totals.ts';

export { SegmentMergeError } from './errors.ts';

export interface MergeOptions {
  outDir: string;
  /** Skip report.md / report.html. */
  reports?: boolean;
  /** Where a file the disk refuses is recorded (see RunOptions.outputs); without it, FilesLostError names them at the end. */
  outputs?: Outputs | undefined;
}

export interface MergeOutcome {
  result: RunResult;
  analysis: RunAnalysis;
  summary: string;
  dir: string;
}

/**
 * `stampede merge`: the segments of one run (`--segment i/N` on N hosts) as the run they split. The
 * histograms add exactly — the totals', every slice's and each interval's, aligned by the shared
 * origin — so every percentile is the whole run's, never an average of the segments'; counts and
 * errors add; gauges combine by their kind. The result goes through the same analysis as a single
 * run (SLO, flags, verdict; the generator judged by its worst segment) into a normal run folder.
 * @throws SegmentMergeError for folders that are not every segment of one run, once.
 */
export async function mergeRuns(dirs: readonly string[], options: MergeOptions): Promise<MergeOutcome> {
  const segments = readSegments(dirs).sort((a, b) => a.segment.index - b.segment.index);
  checkSegments(segments);
  const into = segments.find((s) => resolve(s.dir) === resolve(options.outDir));
  if (into) throw new SegmentMergeError(`--out ${options.outDir} is segment ${into.segment.index}/${into.segment.count}'s own folder: give the merged run a folder of its own`);
  const profile = segments[0]!.profile;
  const plan = createSchedule(profile).plan;
  const results = segments.map((s) => s.result);
  const originMs = Math.min(...results.map((r) => Date.parse(r.startedAt)));
  const dir = createRunDir(options.outDir);
  const hlog = openLatencyLog(dir);
  const intervalLog = openIntervalLog(dir);
  const driver = mergedDriverReport(results);
  let recorder: RunRecorder;
  try {
    recorder = new RunRecorder(plan, {
      intervalUs: results[0]!.intervals.intervalMs * 1000,
      startTimeMs: originMs,
      hlog: (chunk) => hlog.write(chunk),
      onInterval: (interval) => intervalLog.write(`${JSON.stringify(interval)}\n`),
    });
    const catalog = Object.fromEntries(driver.gauges.map((g) => [g.name, g]));
    recorder.digest.declareGauges(catalog);
    await mergeSegmentIntervals(
      segments.map((s) => s.dir),
      recorder,
      catalog,
    );
  } finally {
    await Promise.all([hlog.close(), intervalLog.close()]);
  }
  const outputs = options.outputs ?? new Outputs();
  // The merged result is added up in memory, not read back from the logs it writes: it goes on without them.
  for (const log of [hlog, intervalLog]) if (log.failure) outputs.lose(log.path, `${log.failure.reason}: cut after its last whole interval`);
  mergeRecorderParts(
    recorder,
    results.map((r) => partOfResult(r, plan)),
  );
  const finishedAt = new Date(Math.max(...results.map((r) => Date.parse(r.wall.finishedAt))));
  const built = buildResult({
    profile,
    plan,
    target: results[0]!.target,
    recorder,
    driver,
    startedAt: new Date(originMs).toISOString(),
    wall: { finishedAt: finishedAt.toISOString(), elapsedMs: finishedAt.getTime() - originMs },
  });
  const result: RunResult = { ...built, merged: { segments: segments.map(mergedSegment) } };
  const analysis = analyseRun(result, profile, { plan });
  const summary = `${renderSummary(result, analysis)}${mergedNote(segments)}`;
  const written = writeRunFolder(dir, { result, analysis, profile, summary }, outputs);
  if (options.reports !== false) await renderReportsInto(dir, written, analysis, outputs);
  if (options.outputs === undefined) outputs.throwIfLost();
  return { result: written, analysis, summary, dir };
}

function mergedSegment({ dir, result, segment }: SegmentRun): MergedSegment {
  return {
    ...segment,
    dir,
    target: result.target,
    requests: { sent: result.requests.sent, ok: result.requests.ok, failed: result.requests.failed },
    interrupted: result.interrupted,
    ...(result.generator && { generator: result.generator }),
  };
}

/** The segments under the summary, each with its own generator's judgement: the one that was the limit is named. */
function mergedNote(segments: readonly SegmentRun[]): string {
  const lines = segments.map((s) => {
    const generator = s.result.generator && judgeGenerator(s.result.generator, s.profile.generator);
    const limit = generator?.saturated ? `; its generator was the limit: ${generator.reasons.join('; ')}` : '';
    return `- ${s.segment.index}/${s.segment.count}: ${s.dir} (${s.result.requests.sent} sent${s.result.interrupted ? ', interrupted' : ''}${limit})`;
  });
  return `\nMerged from ${segments.length} segments (histograms added exactly; the generator judged by its worst segment):\n${lines.join('\n')}\n`;
}
