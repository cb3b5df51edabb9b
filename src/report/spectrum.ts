import type { Histogram } from '../recorder/histograms.ts';

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
