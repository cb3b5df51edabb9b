import type { GaugeCatalog } from '../recorder/gauges.ts';
import { fromLogTags } from '../recorder/interval-histograms.ts';
import { type IntervalPart, mergeIntervalParts } from '../recorder/merge.ts';
import type { RunRecorder } from '../recorder/run-recorder.ts';
import { readIntervalLog, readLatencyLogIntervals } from '../run-folder/index.ts';
import { SegmentMergeError } from './errors.ts';

/**
 * One segment's intervals as it wrote them: each line of intervals.jsonl with the same interval's
 * histograms from latency.hlog (the two are written together, one entry per interval, in order).
 */
async function* segmentIntervals(dir: string, kinds: readonly string[]): AsyncGenerator<IntervalPart> {
  const logged = readLatencyLogIntervals(dir);
  for await (const interval of readIntervalLog(dir)) {
    const next = await logged.next();
    if (next.done || Math.abs(next.value.startSec * 1000 - interval.tMs) > 0.5) {
      throw new SegmentMergeError(`${dir}: latency.hlog and intervals.jsonl disagree at ${interval.tMs} ms (a damaged or cut folder)`);
    }
    yield { interval, histograms: fromLogTags(next.value.byTag, kinds) };
  }
}

/**
 * Every segment's interval i added into one, in order, into `into` (its interval log and
 * intervals.jsonl): the segments share one clock origin, so interval i covers the same wall-clock
 * span on every host. Histograms add exactly; a segment that ended earlier simply has no part in
 * the last intervals. Memory is one interval per segment.
 */
export async function mergeSegmentIntervals(dirs: readonly string[], into: RunRecorder, catalog: GaugeCatalog): Promise<void> {
  const kinds = into.plan.kinds;
  const streams = dirs.map((dir) => segmentIntervals(dir, kinds));
  const heads = await Promise.all(streams.map((s) => s.next()));
  for (;;) {
    const live = heads.flatMap((h, i) => (h.done ? [] : [{ i, part: h.value }]));
    if (live.length === 0) return;
    const tMs = Math.min(...live.map((h) => h.part.interval.tMs));
    const now = live.filter((h) => h.part.interval.tMs === tMs);
    const { interval, histograms } = mergeIntervalParts(
      now.map((h) => h.part),
      kinds.length,
      catalog,
    );
    into.appendMergedInterval(interval, histograms);
    for (const { i } of now) heads[i] = await streams[i]!.next();
  }
}
