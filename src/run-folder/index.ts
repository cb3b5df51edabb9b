import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import type { Qualification } from '../analysis/qualification.ts';
import { InputFileError, readInputJson, readInputLines } from '../files/input-file.ts';
import type { Profile } from '../profile/types.ts';
import { readLatencyLogColumns, readLogIntervals, type LogIntervalLines, type LoggedInterval } from '../recorder/latency-log.ts';
import { INTERVALS_FILE, type IntervalResult } from '../recorder/interval-digest.ts';
import { upgradeResult, type RunResult } from '../recorder/result.ts';
import { LogStream, writeFileAtomic } from './atomic.ts';
import { profileToJson, storedNumbers } from './profile-json.ts';
import { checkQualificationShape, checkResultShape } from './result-shape.ts';
import { storedDocument, storedLog } from './stored-bounds.ts';
import { ArtifactWriteError, asWriteError, isOutOfSpace } from './write-errors.ts';

export { writeFileAtomic } from './atomic.ts';
export { ArtifactWriteError } from './write-errors.ts';

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

/** reports/<profile>/<prefix><UTC timestamp>/ — sortable, and valid on every file system. */
export function defaultRunDir(root: string, profileName: string, startedAt: Date, prefix = ''): string {
  const stamp = startedAt
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
  return join(root, profileName, `${prefix}${stamp}`);
}

/** A folder the caller named: created if missing, reused if there (the caller chose it). */
export function createRunDir(dir: string): string {
  try {
    makeFolders(dir);
  } catch (error) {
    throw asFolderError(dir, error);
  }
  return dir;
}

/**
 * `mkdir -p`, one level at a time from the deepest folder that exists. Node's recursive mkdirSync
 * retries for ever where a level can hold no folder (/proc answers ENOENT every time), blocking
 * the event loop and every signal; a level made alone fails once, with its real error (a read-only
 * disk's EROFS, where the recursive call reported ENOENT).
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let level = resolve(dir); !existsSync(level); level = dirname(level)) {
    missing.push(level);
    if (dirname(level) === level) break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (error) {
      // Made by another process between the check and here: the folder is there all the same.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * A folder that cannot be made is a place that cannot hold the run (exit 3), whatever the reason:
 * a read-only or full disk, a path through a file (ENOTDIR), a place that takes no folders (/proc: ENOENT).
 */
function asFolderError(dir: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM'
    ? new ArtifactWriteError(dir, code, undefined, undefined, 'folder')
    : asWriteError(dir, error);
}

/**
 * A new folder at `dir`, or `dir-2`, `dir-3`, … when runs started in the same second already took
 * it: two runs of one profile never write into one folder. Creating the last level without
 * `recursive` makes the claim atomic between processes.
 */
export function createNewRunDir(dir: string): string {
  createRunDir(dirname(dir));
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? dir : `${dir}-${n}`;
    try {
      mkdirSync(candidate);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw asFolderError(candidate, error);
      if (n >= 1000) throw error;
    }
  }
}

/** How a log is written: `async` on a wall clock (a real target: the sending thread never waits on the disk), `sync` in virtual time (see LogStream). */
export type LogMode = 'sync' | 'async';

/** The interval log, streamed while the run lasts; `onFailure` when the disk stops taking it (see LogStream). */
export function openLatencyLog(dir: string, onFailure?: (failure: ArtifactWriteError) => void, mode: LogMode = 'sync'): LogStream {
  return new LogStream(join(dir, RUN_FILES.latencyLog), onFailure, mode);
}

/** The run folder's files on disk now, in RUN_FILES order: what a failed write kept. */
export function keptRunFiles(dir: string): string[] {
  return Object.values(RUN_FILES).filter((name) => existsSync(join(dir, name)));
}

/** Every interval, one JSON line each, streamed while the run lasts. */
export function openIntervalLog(dir: string, onFailure?: (failure: ArtifactWriteError) => void, mode: LogMode = 'sync'): LogStream {
  return new LogStream(join(dir, RUN_FILES.intervals), onFailure, mode);
}

/**
 * A run's intervals read back one at a time, so a run of any length reads in bounded memory; none for a folder without the file.
 * @throws InputFileError for a file that is no interval log, naming the line
 */
export async function* readIntervalLog(dir: string): AsyncGenerator<IntervalResult> {
  const path = join(dir, RUN_FILES.intervals);
  if (!existsSync(path)) return;
  let number = 0;
  for await (const line of readInputLines(path, storedLog(RUN_FILES.intervals))) {
    number++;
    if (line.trim() !== '') yield parseIntervalLine(path, number, line);
  }
}

function parseIntervalLine(path: string, number: number, line: string): IntervalResult {
  let interval: unknown;
  try {
    interval = JSON.parse(line);
  } catch (error) {
    throw new InputFileError(path, `line ${number}: not JSON (${(error as Error).message})`);
  }
  if (typeof (interval as Partial<IntervalResult> | null)?.tMs !== 'number') throw new InputFileError(path, `line ${number}: not an interval (no tMs)`);
  return interval as IntervalResult;
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

/**
 * result.json first: on a full disk, the interval log gives way to it (a log without its result
 * cannot be reported on; a result without its log can). A file the disk refuses throws an
 * ArtifactWriteError that lists what the folder kept.
 */
export function writeRunFolder(dir: string, contents: RunFolderContents): void {
  try {
    writeResult(dir, contents.result);
    writeFolderRest(dir, contents);
  } catch (error) {
    throw error instanceof ArtifactWriteError ? error.keeping(keptRunFiles(dir)) : error;
  }
}

function writeResult(dir: string, result: RunResult): void {
  const path = join(dir, RUN_FILES.result);
  try {
    writeJson(path, result);
  } catch (error) {
    // The streamed logs give way to result.json, which carries the run's totals and its interval digest.
    const logs = [RUN_FILES.latencyLog, RUN_FILES.intervals].filter((name) => existsSync(join(dir, name)));
    if (!(error instanceof ArtifactWriteError) || !isOutOfSpace(error) || logs.length === 0) throw error;
    for (const name of logs) rmSync(join(dir, name), { force: true });
    try {
      writeJson(path, result);
    } catch (again) {
      throw again instanceof ArtifactWriteError ? again.keeping([], `${logs.join(' and ')} ${logs.length > 1 ? 'were' : 'was'} removed to make room, in vain`) : again;
    }
  }
}

function writeFolderRest(dir: string, contents: RunFolderContents): void {
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

/** latency.hlog's intervals as they stream, their histograms still encoded; none for a folder without one. @throws InputFileError for a file that is no interval log */
export async function* readLatencyLogIntervals(dir: string): AsyncGenerator<LogIntervalLines> {
  const path = join(dir, RUN_FILES.latencyLog);
  if (!existsSync(path)) return;
  try {
    yield* readLogIntervals(readInputLines(path, storedLog(RUN_FILES.latencyLog)));
  } catch (error) {
    throw asLogContentError(path, error);
  }
}

/**
 * The interval log read back as it streams, `perColumn` intervals summed per column (the heatmap's); none for a folder without one.
 * @throws InputFileError for a file that is no interval log
 */
export async function readLatencyLogOf(dir: string, perColumn: number): Promise<LoggedInterval[] | undefined> {
  const path = join(dir, RUN_FILES.latencyLog);
  if (!existsSync(path)) return undefined;
  try {
    return await readLatencyLogColumns(readInputLines(path, storedLog(RUN_FILES.latencyLog)), perColumn);
  } catch (error) {
    throw asLogContentError(path, error);
  }
}

/** A line that is no interval, or a histogram that does not decode: the file's content, not a bug. */
function asLogContentError(path: string, error: unknown): unknown {
  return error instanceof Error && !(error instanceof InputFileError) ? new InputFileError(path, `not an HdrHistogram interval log (${error.message})`) : error;
}

/** A run folder's result, and its analysis and profile when it kept them. @throws InputFileError naming a file that is unreadable, not JSON or not a stampede file */
export function readRunFolder(dir: string): StoredRun {
  const resultFile = join(dir, RUN_FILES.result);
  const result = upgradeResult(checkResultShape(resultFile, readInputJson(resultFile, storedDocument(RUN_FILES.result))));
  const present = (name: string) => (existsSync(join(dir, name)) ? join(dir, name) : undefined);
  const analysis = present(RUN_FILES.analysis);
  const profile = present(RUN_FILES.profile);
  return {
    result,
    ...(analysis !== undefined && { analysis: readInputJson(analysis, storedDocument(RUN_FILES.analysis)) as RunAnalysis }),
    ...(profile !== undefined && { profile: readInputJson(profile, storedDocument(RUN_FILES.profile), storedNumbers) as Profile }),
  };
}

/** A qualification folder's own file, beside its steps' run folders. */
export const QUALIFICATION_FILE = 'qualification.json';

/** A qualification folder's qualification.json. @throws InputFileError naming a file that is missing, unreadable, not JSON or not a qualification */
export function readQualification(dir: string): Qualification {
  const file = join(dir, QUALIFICATION_FILE);
  return checkQualificationShape(file, readInputJson(file, storedDocument(QUALIFICATION_FILE)));
}
