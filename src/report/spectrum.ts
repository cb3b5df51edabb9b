import type { Histogram } from '../recorder/histograms.ts';

/**
 * The HDR percentile spectrum: latency at percentiles spaced evenly on the 1/(1−p) log scale,
 * POINTS_PER_DECADE per decade (enough for a line through them to follow the quantile curve), up to the last percentile the sample can resolve (1 − 1/n), then the max.
 */
export const POINTS_PER_DECADE = 20;

export function percentileSpectrum(h: Histogram): { percentile: number; valueUs: number }[] {
  if (h.totalCount === 0) return [];
  const decades = Math.log10(h.totalCount);
  const points: { percentile: number; valueUs: number }[] = [];
  for (let i = 0; i <= Math.floor(decades * POINTS_PER_DECADE); i++) {
    const p = 100 * (1 - 10 ** (-i / POINTS_PER_DECADE));
    points.push({ percentile: Number(p.toPrecision(8)), valueUs: h.getValueAtPercentile(p) });
  }
  points.push({ percentile: 100, valueUs: h.maxValue });
  return points;
}
