import { Document, isScalar, visit, type YAMLMap } from 'yaml';
import type { TraceLayout } from './columns.ts';
import { fitProfileOf } from './fit/index.ts';
import { readTrace, type TraceReadOptions, type TraceReadSummary } from './read.ts';
import { type TraceStats, TraceStatistics } from './stats.ts';

export { ColumnsError, layoutOf, type TimeUnit, type TraceLayout } from './columns.ts';
export { renderTraceStats } from './render.ts';
export type { TraceReadSummary } from './read.ts';
export { type PreparedReplay, prepareReplay, type ReplayWindow } from './replay/index.ts';
export type { TraceStats } from './stats.ts';

/** What `trace stats` writes as JSON: the file, how it was read, its statistics. */
export interface TraceStatsFile {
  trace: string;
  read: TraceReadSummary;
  stats: TraceStats;
}

/** One streamed pass over the trace. @throws InputFileError naming the file and line */
export async function traceStats(file: string, layout: TraceLayout, options: TraceReadOptions): Promise<TraceStatsFile> {
  const { read, statistics } = await readStatistics(file, layout, options);
  return { trace: file, read, stats: statistics.result() };
}

async function readStatistics(file: string, layout: TraceLayout, options: TraceReadOptions): Promise<{ read: TraceReadSummary; statistics: TraceStatistics }> {
  const statistics = new TraceStatistics();
  const read = await readTrace(file, layout, (r) => statistics.add(r), options);
  return { read, statistics };
}

/** What `trace fit` writes: the profile as YAML, its key file when popularity is the trace's own, and what the fit could not say. */
export interface TraceFitFiles extends TraceStatsFile {
  yaml: string;
  keysCsv?: string;
  notes: string[];
}

/** One streamed pass, then a profile fitted to it; `keysFile` is the key file's name as the profile will refer to it. */
export async function traceFit(file: string, layout: TraceLayout, options: TraceReadOptions, keysFile: string): Promise<TraceFitFiles> {
  const { read, statistics } = await readStatistics(file, layout, options);
  const stats = statistics.result();
  const fit = fitProfileOf(file, stats, statistics, keysFile);
  const header = [`Fitted by stampede trace fit from ${file} (${stats.requests} requests over ${stats.durationS}s).`, ...fit.notes.map((n) => `- ${n}`)];
  const yaml = `${header.map((line) => `# ${line}`).join('\n')}\n${profileYaml(fit.profile)}`;
  return { trace: file, read, stats, yaml, ...(fit.keysCsv !== undefined && { keysCsv: fit.keysCsv }), notes: fit.notes };
}

/** The profile as YAML, each map of plain values on one line ({ type: steady, rate: 5000, duration: 60s }), as the shipped profiles are written. */
function profileYaml(profile: Record<string, unknown>): string {
  const doc = new Document(profile);
  visit(doc, {
    Map(_, node: YAMLMap) {
      if (node.items.every((pair) => isScalar(pair.value))) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0 });
}
