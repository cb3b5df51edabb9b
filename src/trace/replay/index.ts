import type { TraceLayout } from '../columns.ts';
import type { TraceReadOptions } from '../read.ts';
import { replayOverrides } from './profile.ts';
import { type ReplayWindow, scanTrace, type TraceScan } from './scan.ts';
import { ReplaySchedule } from './schedule.ts';

export type { ReplayWindow, TraceScan } from './scan.ts';
export { ReplaySchedule } from './schedule.ts';

/** What a replay needs before its run: the scanned window, its schedule, and the overrides that make a base profile describe it. */
export interface PreparedReplay {
  scan: TraceScan;
  schedule: ReplaySchedule;
  overrides: string[];
}

/**
 * Reads the trace once (streamed) and returns its replay at `speed` × its pace; undefined when the
 * signal stopped the read. @throws InputFileError naming the file and line
 */
export async function prepareReplay(file: string, layout: TraceLayout, window: ReplayWindow, speed: number, read: TraceReadOptions): Promise<PreparedReplay | undefined> {
  const scan = await scanTrace(file, layout, window, read);
  if (scan === undefined) return undefined;
  const schedule = new ReplaySchedule(scan, layout, speed);
  return { scan, schedule, overrides: replayOverrides(scan, schedule.plan, speed) };
}
