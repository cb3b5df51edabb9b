import type { TraceLayout } from './columns.ts';
import { readTrace, type TraceReadOptions, type TraceReadSummary } from './read.ts';
import { type TraceStats, TraceStatistics } from './stats.ts';

export { ColumnsError, layoutOf, type TimeUnit, type TraceLayout } from './columns.ts';
export { renderTraceStats } from './render.ts';
export type { TraceReadSummary } from './read.ts';
export type { TraceStats } from './stats.ts';

/** What `trace stats` writes as JSON: the file, how it was read, its statistics. */
export interface TraceStatsFile {
  trace: string;
  read: TraceReadSummary;
  stats: TraceStats;
}

/** One streamed pass over the trace. @throws InputFileError naming the file and line */
export async function traceStats(file: string, layout: TraceLayout, options: TraceReadOptions): Promise<TraceStatsFile> {
  const statistics = new TraceStatistics();
  const read = await readTrace(file, layout, (r) => statistics.add(r), options);
  return { trace: file, read, stats: statistics.result() };
}
