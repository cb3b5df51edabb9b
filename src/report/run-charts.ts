import type { RunResult } from '../recorder/result.ts';
import { errorsOverTimeChart, gaugeCharts, latencyHeatmapChart, latencyOverTimeChart, percentileSpectrumChart, throughputChart, withEventMarks } from './charts.ts';
import type { HtmlChart } from './html.ts';
import { decodeFromCompressedBase64, type Histogram } from '../recorder/histograms.ts';
import type { LoggedInterval } from '../recorder/latency-log.ts';
import { percentileSpectrum } from './spectrum.ts';
import { TIMELINE_SECTION } from './timeline.ts';

/**
 * The charts of one run: throughput and latency over time (the result's bounded series), the
 * heatmap (from the interval log), the measured spectrum, the gauges by family. The over-time
 * charts stop where sending stopped: an interval after the last send holds only the drain
 * (stragglers completing, nothing sent), which drawn as a rate looks like a collapse that never
 * happened; its requests are in the totals, the heatmap and the spectrum. A last interval cut short
 * while sending (an interrupted run) is drawn at the rate of the time it covered (`coveredMs`).
 */
export function runCharts(result: RunResult, latencyLog: readonly LoggedInterval[] | undefined): HtmlChart[] {
  const sendingEndMs = result.warmupMs + result.durationMs;
  // The series: the intervals themselves, or neighbours merged on a long run (each point covers spanMs).
  const { series, spanMs: intervalMs } = result.intervals;
  const intervals = series.filter((i) => i.tMs < sendingEndMs);
  const charts: HtmlChart[] = [];
  // Every chart over time marks the timeline's events where they happened.
  const marks = (result.timeline ?? []).flatMap((s) => (s.actualMs === null ? [] : [{ tMs: s.actualMs, label: s.type }]));
  // A run with a timeline reads its events' charts beside the table of how long each took to recover.
  const section = marks.length > 0 ? TIMELINE_SECTION : undefined;
  if (intervals.length > 0) {
    charts.push({ title: 'Throughput', option: withEventMarks(throughputChart(intervals, intervalMs, result.askedRate), marks), section });
    charts.push({ title: 'Latency over time', option: withEventMarks(latencyOverTimeChart(intervals), marks), section });
    const errors = errorsOverTimeChart(intervals, intervalMs);
    if (errors) charts.push({ title: 'Errors by reason', option: withEventMarks(errors, marks) });
  }
  if (latencyLog && latencyLog.length > 0) {
    const heatmap = latencyHeatmapChart(latencyLog);
    if (heatmap) charts.push({ title: 'Latency heatmap', option: withEventMarks(heatmap, marks), height: 380 });
  }
  const measured = decodeFromCompressedBase64(result.histograms.latency) as Histogram;
  if (measured.totalCount > 0) {
    charts.push({ title: 'Percentile spectrum', option: percentileSpectrumChart([{ name: 'all requests', points: percentileSpectrum(measured) }]) });
  }
  for (const g of gaugeCharts(intervals, result.gauges)) charts.push({ title: g.title, option: withEventMarks(g.option, marks) });
  return charts;
}
