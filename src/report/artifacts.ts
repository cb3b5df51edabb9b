import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile } from '../profile/types.ts';
import { realismFlags, runVerdict, type Verdict } from '../realism/index.ts';
import type { RunResult } from '../recorder/result.ts';
import { renderHtmlPage } from './html.ts';
import { readLatencyLog, type LoggedInterval } from './latency-log.ts';
import { runCharts } from './run-charts.ts';
import { renderRunReport } from './run-report.ts';

/*
 * Reports are renderings of stored artifacts: result.json, latency.hlog and profile.json (the
 * resolved profile, which the realism flags read). `stampede report <dir>` re-renders from them.
 */

export const PROFILE_FILE = 'profile.json';

/** What a run folder holds, read back. */
export interface RunArtifacts {
  result: RunResult;
  profile?: Profile;
  latencyLog?: LoggedInterval[];
}

/** Non-finite limits ("inf" in YAML) survive the JSON round trip as {"$number": "Infinity"}. */
export function profileToJson(profile: Profile): string {
  return JSON.stringify(profile, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { $number: String(v) } : v), 2) + '\n';
}

export function profileFromJson(text: string): Profile {
  return JSON.parse(text, (_k, v: unknown) => (v !== null && typeof v === 'object' && '$number' in v && Object.keys(v).length === 1 ? Number((v as { $number: string }).$number) : v)) as Profile;
}

export interface RenderedRunReport {
  markdown: string;
  html: string;
  verdict: Verdict;
}

/** report.md and report.html of one run. Pure. */
export function renderRunReports(artifacts: RunArtifacts): RenderedRunReport {
  const { result, profile } = artifacts;
  const flags = profile ? realismFlags({ profile, result }) : [];
  const verdict = runVerdict(result.slo, flags);
  const markdown = renderRunReport({ result, flags, verdict });
  const html = renderHtmlPage({ title: result.profile.name, verdict, markdown, charts: runCharts(result, artifacts.latencyLog), chartsAfter: 'Realism flags' });
  return { markdown, html, verdict };
}

/** Writes profile.json, report.md and report.html next to result.json. */
export function writeRunReports(dir: string, result: RunResult, profile: Profile): RenderedRunReport {
  writeFileSync(join(dir, PROFILE_FILE), profileToJson(profile));
  return writeRenderedReports(dir, loadRunArtifacts(dir, result));
}

export function writeRenderedReports(dir: string, artifacts: RunArtifacts): RenderedRunReport {
  const rendered = renderRunReports(artifacts);
  writeFileSync(join(dir, 'report.md'), rendered.markdown);
  writeFileSync(join(dir, 'report.html'), rendered.html);
  return rendered;
}

/** Reads a run folder; `result` may be given when already in memory. */
export function loadRunArtifacts(dir: string, result?: RunResult): RunArtifacts {
  const loaded = result ?? (JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult);
  const profilePath = join(dir, PROFILE_FILE);
  const hlogPath = join(dir, 'latency.hlog');
  return {
    result: loaded,
    ...(existsSync(profilePath) && { profile: profileFromJson(readFileSync(profilePath, 'utf8')) }),
    ...(existsSync(hlogPath) && { latencyLog: readLatencyLog(readFileSync(hlogPath, 'utf8')) }),
  };
}
