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

/** Reads latency.hlog (the HdrHistogram interval log every run writes) into per-interval value counts. */
export function readLatencyLog(text: string): LoggedInterval[] {
  const reader = new HistogramLogReader(text);
  const out: LoggedInterval[] = [];
  for (let h = reader.nextIntervalHistogram(); h; h = reader.nextIntervalHistogram()) {
    out.push({ tMs: Math.round(h.startTimeStampMsec - reader.startTimeSec * 1000), counts: recordedValues(h) });
  }
  return out;
}

/** The latency histogram of the given intervals merged (e.g. the measured ones, without the warm-up). */
export function mergeIntervals(intervals: readonly LoggedInterval[]): Histogram {
  const h = newHistogram();
  for (const i of intervals) for (const [value, count] of i.counts) h.recordValueWithCount(value, count);
  return h;
}
