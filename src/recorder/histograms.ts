import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** Latency histograms hold integer µs with 3 significant digits; they grow to fit, never clip. */
export function newHistogram(): Histogram {
  return hdr.build({ bitBucketSize: 32, numberOfSignificantValueDigits: 3, lowestDiscernibleValue: 1, autoResize: true });
}

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** The percentiles every report quotes, in µs (integers; the mean rounded to 0.1 µs). */
export function summarize(h: Histogram): LatencySummary {
  if (h.totalCount === 0) return { count: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  return {
    count: h.totalCount,
    mean: Math.round(h.mean * 10) / 10,
    p50: h.getValueAtPercentile(50),
    p90: h.getValueAtPercentile(90),
    p99: h.getValueAtPercentile(99),
    p999: h.getValueAtPercentile(99.9),
    max: h.maxValue,
  };
}

export { HistogramLogWriter, HistogramLogReader, encodeIntoCompressedBase64, decodeFromCompressedBase64 } from 'hdr-histogram-js';
