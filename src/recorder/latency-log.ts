import { HistogramLogReader, newHistogram, type Histogram } from './histograms.ts';

/** One interval of the latency log: its start and the recorded values with their counts. */
export interface LoggedInterval {
  /** Interval start, ms from the run start. */
  tMs: number;
  /** [latency µs, count], ascending by latency; HDR bucket values (3 significant digits). */
  counts: [number, number][];
}

interface IterationValue {
  valueIteratedTo: number;
  countAtValueIteratedTo: number;
}
interface IterableHistogram {
  recordedValuesIterator: { reset(): void; hasNext(): boolean; next(): IterationValue };
}

/** The recorded (value, count) pairs of a histogram, ascending. */
export function recordedValues(h: Histogram): [number, number][] {
  const it = (h as unknown as IterableHistogram).recordedValuesIterator;
  it.reset();
  const out: [number, number][] = [];
  while (it.hasNext()) {
    const v = it.next();
    out.push([v.valueIteratedTo, v.countAtValueIteratedTo]);
  }
  return out;
}

/**
 * Reads latency.hlog (the HdrHistogram interval log every run writes) line by line into per-column
 * value counts, `perColumn` neighbouring intervals summed into each column: memory is bounded by
 * the columns, not by the run's length. Header lines are kept and handed to the log reader with each
 * batch of interval lines, so times stay relative to the log's start.
 */
export async function readLatencyLogColumns(lines: AsyncIterable<string>, perColumn: number): Promise<LoggedInterval[]> {
  const header: string[] = [];
  const out: LoggedInterval[] = [];
  let batch: string[] = [];
  let column: { tMs: number; counts: Map<number, number>; intervals: number } | undefined;
  const closeColumn = () => {
    if (column) out.push({ tMs: column.tMs, counts: [...column.counts.entries()].sort((a, b) => a[0] - b[0]) });
    column = undefined;
  };
  const readBatch = () => {
    if (batch.length === 0) return;
    const reader = new HistogramLogReader([...header, ...batch].join('\n'));
    batch = [];
    for (let h = reader.nextIntervalHistogram(); h; h = reader.nextIntervalHistogram()) {
      column ??= { tMs: Math.round(h.startTimeStampMsec - reader.startTimeSec * 1000), counts: new Map(), intervals: 0 };
      for (const [value, count] of recordedValues(h)) column.counts.set(value, (column.counts.get(value) ?? 0) + count);
      if (++column.intervals >= perColumn) closeColumn();
    }
  };
  for await (const line of lines) {
    if (line.startsWith('#') || line.startsWith('"') || line.trim() === '') header.push(line);
    else if (batch.push(line) >= LINES_PER_BATCH) readBatch();
  }
  readBatch();
  closeColumn();
  return out;
}

const LINES_PER_BATCH = 1000;

/** The latency histogram of the given intervals merged (e.g. the measured ones, without the warm-up). */
export function mergeIntervals(intervals: readonly LoggedInterval[]): Histogram {
  const h = newHistogram();
  for (const i of intervals) for (const [value, count] of i.counts) h.recordValueWithCount(value, count);
  return h;
}
