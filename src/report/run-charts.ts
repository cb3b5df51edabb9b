import type { RunResult } from '../recorder/result.ts';
import { gaugeCharts, latencyHeatmapChart, latencyOverTimeChart, percentileSpectrumChart, throughputChart } from './charts.ts';
import type { HtmlChart } from './html.ts';
import { decodeFromCompressedBase64, type Histogram } from '../recorder/histograms.ts';
import type { LoggedInterval } from '../recorder/latency-log.ts';
import { percentileSpectrum } from './spectrum.ts';

/** The charts of one run: throughput and latency over time (the result's series), the heatmap (from the interval log), the measured spectrum, the gauges by family. */
export function runCharts(result: RunResult, latencyLog: readonly LoggedInterval[] | undefined): HtmlChart[] {
  // The result's bounded series: the intervals themselves, or neighbours merged on a long run.
  const { series: intervals, spanMs } = result.intervals;
  const charts: HtmlChart[] = [];
  if (intervals.length > 0) {
    charts.push({ title: 'Throughput', option: throughputChart(intervals, spanMs) });
    charts.push({ title: 'Latency over time', option: latencyOverTimeChart(intervals) });
  }
  if (latencyLog && latencyLog.length > 0) {
    const heatmap = latencyHeatmapChart(latencyLog);
    if (heatmap) charts.push({ title: 'Latency heatmap', option: heatmap, height: 380 });
  }
  const measured = decodeFromCompressedBase64(result.histograms.latency) as Histogram;
  if (measured.totalCount > 0) {
    charts.push({ title: 'Percentile spectrum', option: percentileSpectrumChart([{ name: 'all requests', points: percentileSpectrum(measured) }]) });
  }
  for (const g of gaugeCharts(intervals, result.gauges)) charts.push({ title: g.title, option: g.option });
  return charts;
}
