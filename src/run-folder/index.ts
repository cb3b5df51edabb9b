import { createReadStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import type { Profile } from '../profile/types.ts';
import { readLatencyLogColumns, type LoggedInterval } from '../recorder/latency-log.ts';
import { INTERVALS_FILE, type IntervalResult } from '../recorder/interval-digest.ts';
import { upgradeResult, type RunResult } from '../recorder/result.ts';
import { LogStream, writeFileAtomic } from './atomic.ts';
import { profileFromJson, profileToJson } from './profile-json.ts';

export { writeFileAtomic } from './atomic.ts';

/*
 * A run folder, the one place that knows its layout. result.json (what was measured) is written
 * first, then analysis.json (what was judged), the resolved profile, the summary and the reports —
 * each atomically, so a run stopped at any moment leaves whole files (the interval log, streamed,
 * leaves whole intervals; so does intervals.jsonl, every interval as a JSON line — result.json keeps
 * only their bounded summary). Everything else is a rendering of the first three and can be made
 * again by `stampede report <dir>`.
 */
export const RUN_FILES = {
  result: 'result.json',
  analysis: 'analysis.json',
  latencyLog: 'latency.hlog',
  intervals: INTERVALS_FILE,
  profile: 'profile.json',
  summary: 'summary.md',
  reportMarkdown: 'report.md',
  reportHtml: 'report.html',
} as const;

/** reports/<profile>/<UTC timestamp>/ — sortable, and valid on every file system. */
export function defaultRunDir(root: string, profileName: string, startedAt: Date): string {
  const stamp = startedAt
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
  return join(root, profileName, stamp);
}

export function createRunDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The interval log, streamed while the run lasts. */
export function openLatencyLog(dir: string): LogStream {
  return new LogStream(join(dir, RUN_FILES.latencyLog));
}

/** Every interval, one JSON line each, streamed while the run lasts. */
export function openIntervalLog(dir: string): LogStream {
  return new LogStream(join(dir, RUN_FILES.intervals));
}

/** A run's intervals read back one at a time, so a run of any length reads in bounded memory; none for a folder without the file. */
export async function* readIntervalLog(dir: string): AsyncGenerator<IntervalResult> {
  const path = join(dir, RUN_FILES.intervals);
  if (!existsSync(path)) return;
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as IntervalResult;
}

export interface RenderedReports {
  markdown: string;
  html: string;
}

export interface RunFolderContents {
  result: RunResult;
  analysis: RunAnalysis;
  profile: Profile;
  summary: string;
  reports?: RenderedReports;
}

export function writeRunFolder(dir: string, contents: RunFolderContents): void {
  writeJson(join(dir, RUN_FILES.result), contents.result);
  writeJson(join(dir, RUN_FILES.analysis), contents.analysis);
  writeFileAtomic(join(dir, RUN_FILES.profile), profileToJson(contents.profile));
  writeFileAtomic(join(dir, RUN_FILES.summary), contents.summary);
  if (contents.reports) writeReports(dir, contents.reports);
}

export function writeReports(dir: string, reports: RenderedReports): void {
  writeFileAtomic(join(dir, RUN_FILES.reportMarkdown), reports.markdown);
  writeFileAtomic(join(dir, RUN_FILES.reportHtml), reports.html);
}

/** Re-judging a stored run writes only its analysis. */
export function writeAnalysis(dir: string, analysis: RunAnalysis): void {
  writeJson(join(dir, RUN_FILES.analysis), analysis);
}

export function writeJson(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** What a run folder holds, read back. Older folders may lack the analysis or the profile. */
export interface StoredRun {
  result: RunResult;
  analysis?: RunAnalysis;
  profile?: Profile;
}

export function isRunFolder(dir: string): boolean {
  return existsSync(join(dir, RUN_FILES.result));
}

/** The interval log read back as it streams, `perColumn` intervals summed per column (the heatmap's); none for a folder without one. */
export async function readLatencyLogOf(dir: string, perColumn: number): Promise<LoggedInterval[] | undefined> {
  const path = join(dir, RUN_FILES.latencyLog);
  if (!existsSync(path)) return undefined;
  return readLatencyLogColumns(createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY }), perColumn);
}

export function readRunFolder(dir: string): StoredRun {
  const result = upgradeResult(JSON.parse(readFileSync(join(dir, RUN_FILES.result), 'utf8')));
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined);
  const analysis = read(RUN_FILES.analysis);
  const profile = read(RUN_FILES.profile);
  return {
    result,
    ...(analysis !== undefined && { analysis: JSON.parse(analysis) as RunAnalysis }),
    ...(profile !== undefined && { profile: profileFromJson(profile) }),
  };
}
