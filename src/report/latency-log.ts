import { HistogramLogReader, newHistogram, type Histogram } from '../recorder/histograms.ts';

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

/**
 * The HDR percentile spectrum: latency at percentiles spaced evenly on the 1/(1−p) log scale, four
 * per decade, up to the last percentile the sample can resolve (1 − 1/n), then the max.
 */
export function percentileSpectrum(h: Histogram): { percentile: number; valueUs: number }[] {
  if (h.totalCount === 0) return [];
  const decades = Math.log10(h.totalCount);
  const points: { percentile: number; valueUs: number }[] = [];
  for (let i = 0; i <= Math.floor(decades * 4); i++) {
    const p = 100 * (1 - 10 ** (-i / 4));
    points.push({ percentile: Number(p.toPrecision(8)), valueUs: h.getValueAtPercentile(p) });
  }
  points.push({ percentile: 100, valueUs: h.maxValue });
  return points;
}
