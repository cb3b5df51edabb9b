import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import type { Profile } from '../profile/types.ts';
import { readLatencyLog, type LoggedInterval } from '../recorder/latency-log.ts';
import type { RunResult } from '../recorder/result.ts';
import { LogStream, writeFileAtomic } from './atomic.ts';
import { profileFromJson, profileToJson } from './profile-json.ts';

export { writeFileAtomic } from './atomic.ts';

/*
 * A run folder, the one place that knows its layout. result.json (what was measured) is written
 * first, then analysis.json (what was judged), the resolved profile, the summary and the reports —
 * each atomically, so a run stopped at any moment leaves whole files (the interval log, streamed,
 * leaves whole intervals). Everything else is a
 * rendering of the first three and can be made again by `stampede report <dir>`.
 */
export const RUN_FILES = {
  result: 'result.json',
  analysis: 'analysis.json',
  latencyLog: 'latency.hlog',
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
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A new folder at `dir`, or `dir-2`, `dir-3`, … when runs started in the same second already took
 * it: two runs of one profile never write into one folder. Creating the last level without
 * `recursive` makes the claim atomic between processes.
 */
export function createNewRunDir(dir: string): string {
  mkdirSync(dirname(dir), { recursive: true });
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? dir : `${dir}-${n}`;
    try {
      mkdirSync(candidate);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw error;
    }
  }
}

/** The interval log, streamed while the run lasts. */
export function openLatencyLog(dir: string): LogStream {
  return new LogStream(join(dir, RUN_FILES.latencyLog));
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
  latencyLog?: LoggedInterval[];
}

export function isRunFolder(dir: string): boolean {
  return existsSync(join(dir, RUN_FILES.result));
}

export function readLatencyLogOf(dir: string): LoggedInterval[] | undefined {
  const path = join(dir, RUN_FILES.latencyLog);
  return existsSync(path) ? readLatencyLog(readFileSync(path, 'utf8')) : undefined;
}

export function readRunFolder(dir: string): StoredRun {
  const result = JSON.parse(readFileSync(join(dir, RUN_FILES.result), 'utf8')) as RunResult;
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined);
  const analysis = read(RUN_FILES.analysis);
  const profile = read(RUN_FILES.profile);
  const latencyLog = readLatencyLogOf(dir);
  return {
    result,
    ...(analysis !== undefined && { analysis: JSON.parse(analysis) as RunAnalysis }),
    ...(profile !== undefined && { profile: profileFromJson(profile) }),
    ...(latencyLog && { latencyLog }),
  };
}
