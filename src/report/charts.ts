import { createRequire } from 'node:module';
import type * as Echarts from 'echarts';
import { formatUs } from '../analysis/format.ts';
import type { IntervalResult } from '../recorder/run-recorder.ts';
import type { LoggedInterval } from '../recorder/latency-log.ts';
import { specOf, type GaugeCatalog, type GaugeFamily, type GaugeUnit } from '../recorder/gauges.ts';
import { downsample } from './downsample.ts';

/*
 * Chart options (pure data) and their server-side SVG rendering with echarts: the report carries
 * plain SVG, so it opens anywhere without JavaScript or network, and the same input gives the same
 * bytes.
 */

export type ChartOption = Echarts.EChartsCoreOption;

/** echarts is large (~0.7 s to load): required on the first chart, so commands that draw none do not pay for it. */
let echartsModule: typeof Echarts | undefined;
function echarts(): typeof Echarts {
  echartsModule ??= createRequire(import.meta.url)('echarts') as typeof Echarts;
  return echartsModule;
}

export const CHART_WIDTH = 960;
export const CHART_HEIGHT = 320;

const PALETTE = ['#2f6fdf', '#e4572e', '#29a36a', '#9b59b6', '#f2a541', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
const BASE = { animation: false, color: PALETTE, textStyle: { fontFamily: 'system-ui, sans-serif' }, grid: { left: 70, right: 40, top: 64, bottom: 40 } };

/** Room kept between the legend's last row and the plot (the right axes' names sit in it). */
const LEGEND_GAP_PX = 12;

/**
 * Renders an option to an SVG string (echarts SSR, SVG renderer). A static page cannot page a
 * scroll legend, so legends are plain and wrap; when they wrap past the room above the plot, the
 * plot moves down and the chart grows by as much, so no legend row covers a line and every series
 * keeps its name in view.
 */
export function renderChartSvg(option: ChartOption, width = CHART_WIDTH, height = CHART_HEIGHT): string {
  const full = { ...BASE, ...option } as ChartOption & { grid: { top: number } };
  const first = render(full, width, height, (chart) => legendOverflow(chart, full.grid.top));
  if (first.extra <= 0) return first.svg;
  return render({ ...full, grid: { ...full.grid, top: full.grid.top + first.extra } }, width, height + first.extra, () => 0).svg;
}

function render(option: ChartOption, width: number, height: number, measure: (chart: Echarts.EChartsType) => number): { svg: string; extra: number } {
  const chart = echarts().init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption(option);
    const extra = measure(chart);
    return { svg: extra > 0 ? '' : chart.renderToSVGString(), extra };
  } finally {
    chart.dispose();
  }
}

/** The view of a laid-out component, as echarts keeps it (its instance API, not in the public types). */
interface LaidOut {
  getModel(): { getComponent(type: string): object | undefined };
  getViewOfComponentModel(model: object): { group: { y: number; getBoundingRect(): { y: number; height: number } } };
}

/** How far the laid-out legend reaches past the room above the plot, px (≤ 0: it fits). */
function legendOverflow(chart: Echarts.EChartsType, gridTop: number): number {
  const laidOut = chart as unknown as LaidOut;
  const model = laidOut.getModel().getComponent('legend');
  if (!model) return 0;
  const { group } = laidOut.getViewOfComponentModel(model);
  const rect = group.getBoundingRect();
  return Math.ceil(group.y + rect.y + rect.height + LEGEND_GAP_PX - gridTop);
}

const seconds = (tMs: number) => Number((tMs / 1000).toFixed(3));
const timeAxis = { type: 'value', name: 's', nameLocation: 'end', min: 'dataMin', max: 'dataMax' } as const;
/** Plain, so it wraps: a scroll legend's pager cannot be clicked in a static SVG and hides every series past its first page. */
const legend = { top: 26, left: 'center', type: 'plain', width: CHART_WIDTH - 100, itemGap: 16 } as const;
/** Axis names run along the axis, clear of the legend above the plot. */
const yName = { nameLocation: 'middle', nameGap: 52, nameRotate: 90 } as const;

/**
 * A count of one interval per second. The last interval of a run is cut short by its end (its
 * `coveredMs`): divided by the time it covered, not by a full interval, so the drain is not drawn
 * as a collapse.
 */
function perSecondOf(intervalMs: number): (i: IntervalResult, n: number) => number {
  return (i, n) => Number(((n * 1000) / (i.coveredMs ?? intervalMs)).toFixed(1));
}

/** Sent, ok and failed requests per second per interval, beside the asked rate of the plan (when the result carries it). */
export function throughputChart(intervals: readonly IntervalResult[], intervalMs: number, askedRate?: readonly (readonly [number, number])[]): ChartOption {
  const perSecond = perSecondOf(intervalMs);
  const measured = (name: string, pick: (i: IntervalResult) => number) => ({
    name,
    type: 'line',
    showSymbol: false,
    data: downsample(intervals.map((i) => [seconds(i.tMs), perSecond(i, pick(i))])),
  });
  const asked = askedRate
    ? [
        {
          name: 'asked',
          type: 'line',
          showSymbol: false,
          lineStyle: { type: 'dashed', color: '#555' },
          itemStyle: { color: '#555' },
          data: askedRate.map(([tMs, rps]) => [seconds(tMs), rps]),
        },
      ]
    : [];
  return {
    title: { text: 'Throughput', left: 'center', textStyle: { fontSize: 13 } },
    legend,
    xAxis: timeAxis,
    yAxis: { type: 'value', name: 'req/s', ...yName },
    series: [...asked, measured('sent', (i) => i.sent), measured('ok', (i) => i.ok), measured('failed', (i) => i.failed + i.dropped)],
  };
}

/** Failed and dropped requests per second by reason, per interval: which failure started when. Undefined when nothing failed. */
export function errorsOverTimeChart(intervals: readonly IntervalResult[], intervalMs: number): ChartOption | undefined {
  const totals = new Map<string, number>();
  for (const i of intervals) for (const [reason, n] of Object.entries(i.errors ?? {})) totals.set(reason, (totals.get(reason) ?? 0) + n);
  if (totals.size === 0) return undefined;
  const perSecond = perSecondOf(intervalMs);
  const reasons = [...totals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([reason]) => reason);
  return {
    title: { text: 'Errors by reason', left: 'center', textStyle: { fontSize: 13 } },
    legend,
    xAxis: timeAxis,
    yAxis: { type: 'value', name: 'req/s', ...yName },
    series: reasons.map((reason) => ({
      name: reason,
      type: 'line',
      showSymbol: false,
      data: downsample(intervals.map((i) => [seconds(i.tMs), perSecond(i, i.errors?.[reason] ?? 0)])),
    })),
  };
}

/** p50, p99 and max latency per interval, log scale. */
export function latencyOverTimeChart(intervals: readonly IntervalResult[]): ChartOption {
  const line = (name: string, pick: (i: IntervalResult) => number) => ({
    name,
    type: 'line',
    showSymbol: false,
    data: downsample(intervals.filter((i) => i.ok + i.failed > 0).map((i): [number, number] => [seconds(i.tMs), Math.max(1, pick(i)) / 1000])),
  });
  return {
    title: { text: 'Latency over time (from intended send)', left: 'center', textStyle: { fontSize: 13 } },
    legend,
    xAxis: timeAxis,
    yAxis: { type: 'log', name: 'ms', logBase: 10, ...yName },
    series: [line('p50', (i) => i.latencyUs.p50), line('p99', (i) => i.latencyUs.p99), line('max', (i) => i.latencyUs.max)],
  };
}

/** A heatmap wider than this merges neighbouring intervals, so an hour-long run stays a readable (and small) page. */
export const HEATMAP_COLUMNS = 240;

/** Neighbouring intervals merged (counts summed) until at most `maxColumns` remain; each keeps its first start time. */
function mergeColumns(intervals: readonly LoggedInterval[], maxColumns: number): LoggedInterval[] {
  const per = Math.ceil(intervals.length / maxColumns);
  if (per <= 1) return [...intervals];
  const out: LoggedInterval[] = [];
  for (let i = 0; i < intervals.length; i += per) {
    const group = intervals.slice(i, i + per);
    const counts = new Map<number, number>();
    for (const g of group) for (const [v, c] of g.counts) counts.set(v, (counts.get(v) ?? 0) + c);
    out.push({ tMs: group[0]!.tMs, counts: [...counts.entries()].sort((a, b) => a[0] - b[0]) });
  }
  return out;
}

/** Latency heatmap: per interval, how many requests completed in each log-spaced latency band. */
export function latencyHeatmapChart(logged: readonly LoggedInterval[], bands = 32, maxColumns = HEATMAP_COLUMNS): ChartOption | undefined {
  const intervals = mergeColumns(logged, maxColumns);
  let min = Infinity;
  let max = 0;
  for (const i of intervals) {
    for (const [v] of i.counts) {
      if (v <= 0) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  if (max === 0) return undefined;
  const lo = Math.log10(min);
  const hi = Math.log10(max) + 1e-9;
  const width = Math.max((hi - lo) / bands, 1e-6);
  const edges = Array.from({ length: bands }, (_, b) => 10 ** (lo + b * width));
  const cells: [number, number, number][] = [];
  let top = 0;
  intervals.forEach((interval, x) => {
    const counts = new Array<number>(bands).fill(0);
    for (const [v, c] of interval.counts) counts[Math.min(bands - 1, Math.max(0, Math.floor((Math.log10(Math.max(v, 1)) - lo) / width)))]! += c;
    counts.forEach((c, y) => {
      if (c === 0) return;
      const level = Number(Math.log10(c + 1).toFixed(3));
      top = Math.max(top, level);
      cells.push([x, y, level]);
    });
  });
  return {
    title: { text: 'Latency heatmap (requests per interval and band, log colour)', left: 'center', textStyle: { fontSize: 13 } },
    grid: { left: 70, right: 40, top: 40, bottom: 80 },
    xAxis: { type: 'category', name: 's', data: intervals.map((i) => String(seconds(i.tMs))), splitArea: { show: false } },
    yAxis: { type: 'category', name: 'latency', data: edges.map((e) => formatUs(Math.round(e))) },
    visualMap: {
      min: 0,
      max: Math.max(top, 1),
      calculable: false,
      orient: 'horizontal',
      left: 'center',
      bottom: 5,
      itemHeight: 200,
      text: ['many', 'few'],
      inRange: { color: ['#f7fbff', '#6baed6', '#08306b', '#e4572e'] },
    },
    series: [{ name: 'requests', type: 'heatmap', data: cells, progressive: 0 }],
  };
}

/**
 * The percentile spectrum, HDR style: x is 1/(1 − p) on a log axis, labelled as percentiles. A line
 * through the sampled quantiles (dense enough to follow the curve), not steps: a step would hold
 * the minimum flat up to the next sample and draw a floor that is not in the data.
 */
export function percentileSpectrumChart(series: { name: string; points: { percentile: number; valueUs: number }[] }[]): ChartOption {
  const x = (p: number) => (p >= 100 ? 1e7 : Number((1 / (1 - p / 100)).toPrecision(8)));
  return {
    title: { text: 'Percentile spectrum', left: 'center', textStyle: { fontSize: 13 } },
    legend,
    // The axis name under the axis, in the middle: at its end it ran past the chart's right edge.
    grid: { ...BASE.grid, bottom: 56 },
    xAxis: {
      type: 'log',
      name: 'percentile',
      nameLocation: 'middle',
      nameGap: 30,
      logBase: 10,
      min: 1,
      max: highestX(series, x),
      axisLabel: { formatter: (v: number) => (v <= 1 ? '0%' : `${Number((100 * (1 - 1 / v)).toPrecision(6))}%`) },
    },
    yAxis: { type: 'log', name: 'ms', logBase: 10, ...yName },
    series: series.map((s) => ({
      name: s.name,
      type: 'line',
      showSymbol: false,
      data: s.points.filter((p) => p.percentile < 100).map((p) => [x(p.percentile), Math.max(1, p.valueUs) / 1000]),
    })),
  };
}

/** The spectrum's x axis end: the highest 1/(1 − p) drawn, at least 10 (a loop: a spread would put every point on the stack). */
function highestX(series: readonly { points: readonly { percentile: number }[] }[], x: (p: number) => number): number {
  let max = 10;
  for (const s of series) for (const p of s.points) if (p.percentile < 100) max = Math.max(max, x(p.percentile));
  return max;
}

/** The chart of each gauge family, in the order a reader looks for the cause of a collapse. */
const FAMILY_CHARTS: readonly { family: GaugeFamily; title: string }[] = [
  { family: 'connections', title: 'Connections (open, idle, TIME_WAIT)' },
  { family: 'hit-ratio', title: 'Hit ratio' },
  { family: 'queues', title: 'Queues, waiters and busy workers' },
  { family: 'rates', title: 'Rates' },
  { family: 'cache', title: 'Cache shards, memory and NIC' },
  { family: 'process', title: 'Processes: threads, memory, GC' },
  { family: 'faults', title: 'Faults: nodes marked down' },
  { family: 'generator', title: 'Load generator' },
  { family: 'target', title: "Target's own stats" },
];

const UNIT_AXIS: Record<GaugeUnit, string> = { count: 'count', ratio: 'ratio', ms: 'ms', mb: 'MB', rps: 'req/s', cores: 'cores' };

/** A family with more gauges than this is drawn as several charts, so every gauge is drawn and each legend stays readable. */
export const GAUGES_PER_CHART = 16;
/** Room each extra y axis takes on the right of the plot. */
const EXTRA_AXIS_PX = 64;

/**
 * One chart per gauge family, each a line per gauge, read from the run's gauge catalog (never from
 * the gauges' names). Each unit of a family gets an axis of its own: the first on the left, the
 * others on the right, side by side.
 */
export function gaugeCharts(intervals: readonly IntervalResult[], catalog: GaugeCatalog): { title: string; option: ChartOption }[] {
  const keys = new Set<string>();
  for (const i of intervals) for (const key of Object.keys(i.gauges)) keys.add(key);
  const charts: { title: string; option: ChartOption }[] = [];
  const undeclared = [...keys].filter((k) => specOf(catalog, k) === undefined);
  const groups = FAMILY_CHARTS.map(({ family, title }) => ({ title, members: [...keys].filter((k) => specOf(catalog, k)?.family === family) }));
  groups.push({ title: 'Other gauges', members: undeclared });
  for (const { title, members } of groups) {
    const parts = Math.ceil(members.length / GAUGES_PER_CHART);
    for (let p = 0; p < parts; p++) {
      const partTitle = parts > 1 ? `${title} (${p + 1}/${parts})` : title;
      const part = members.slice(p * GAUGES_PER_CHART, (p + 1) * GAUGES_PER_CHART);
      charts.push({ title: partTitle, option: gaugeChart(partTitle, intervals, part, (k) => specOf(catalog, k)?.unit ?? 'count') });
    }
  }
  return charts;
}

function gaugeChart(title: string, intervals: readonly IntervalResult[], members: string[], unitOf: (key: string) => GaugeUnit): ChartOption {
  const units = [...new Set(members.map(unitOf))];
  const axis = (unit: GaugeUnit, k: number) => ({
    type: 'value',
    name: UNIT_AXIS[unit],
    ...(k === 0 ? yName : { position: 'right', offset: (k - 1) * EXTRA_AXIS_PX, nameLocation: 'end', splitLine: { show: false } }),
    ...(unit === 'ratio' ? { min: 0, max: 1 } : {}),
  });
  return {
    title: { text: title, left: 'center', textStyle: { fontSize: 13 } },
    legend,
    grid: { ...BASE.grid, right: 40 + Math.max(0, units.length - 1) * EXTRA_AXIS_PX },
    xAxis: timeAxis,
    yAxis: units.map(axis),
    series: members.map((key) => ({
      name: key,
      type: 'line',
      showSymbol: false,
      yAxisIndex: units.indexOf(unitOf(key)),
      data: downsample(intervals.filter((i) => i.gauges[key] !== undefined).map((i): [number, number] => [seconds(i.tMs), i.gauges[key]!])),
    })),
  };
}

/** The capacity curve: offered rate against latency per step (p99 with its 99% interval), with every SLO latency limit, the peak and the failover load. */
export function capacityChart(input: {
  steps: readonly { askedRps: number; pass: boolean; latencyUs: { p50: number; p99: number; p999: number }; p99IntervalUs?: { lowUs: number; highUs: number } | undefined }[];
  /** Every latency limit of the SLO; `sloP99Us` alone (older qualification files) draws the p99 one. */
  sloLatency?: readonly { label: string; maxUs: number }[] | undefined;
  sloP99Us?: number | undefined;
  peakRps: number;
  failoverRps?: number | undefined;
  capacityRps: number;
}): ChartOption {
  const sorted = [...input.steps].sort((a, b) => a.askedRps - b.askedRps);
  const ms = (us: number) => Math.max(1, us) / 1000;
  const line = (name: string, pick: (s: (typeof sorted)[number]) => number) => ({
    name,
    type: 'line',
    symbolSize: 6,
    data: sorted.map((s) => [s.askedRps, ms(pick(s))]),
  });
  const marks: Record<string, unknown>[] = [{ name: `peak ${Math.round(input.peakRps)}`, xAxis: input.peakRps, lineStyle: { color: '#555', type: 'dashed' } }];
  if (input.failoverRps !== undefined) marks.push({ name: `N+1 ${Math.round(input.failoverRps)}`, xAxis: input.failoverRps, lineStyle: { color: '#e4572e', type: 'dashed' } });
  if (input.capacityRps > 0) marks.push({ name: `capacity ${Math.round(input.capacityRps)}`, xAxis: input.capacityRps, lineStyle: { color: '#29a36a', type: 'solid' } });
  const slo = input.sloLatency ?? (input.sloP99Us !== undefined ? [{ label: 'p99', maxUs: input.sloP99Us }] : []);
  for (const limit of slo) marks.push({ name: `SLO ${limit.label} ${formatUs(limit.maxUs)}`, yAxis: limit.maxUs / 1000, lineStyle: { color: '#9b59b6', type: 'dotted' } });
  const p99 = { ...line('p99', (s) => s.latencyUs.p99), markLine: { symbol: 'none', label: { formatter: '{b}', position: 'insideEndTop' }, data: marks } };
  const withInterval = sorted.filter((s) => s.p99IntervalUs !== undefined);
  // The interval as an error bar per step: a vertical segment from its low to its high bound.
  const interval =
    withInterval.length > 0
      ? [
          {
            name: 'p99 99% interval',
            type: 'line',
            showSymbol: false,
            connectNulls: false,
            lineStyle: { width: 3, opacity: 0.5 },
            data: withInterval.flatMap((s) => [
              [s.askedRps, ms(s.p99IntervalUs!.lowUs)],
              [s.askedRps, ms(s.p99IntervalUs!.highUs)],
              [s.askedRps, null],
            ]),
          },
        ]
      : [];
  return {
    title: { text: 'Capacity curve: offered rate vs latency per step', left: 'center', textStyle: { fontSize: 13 } },
    legend,
    xAxis: { type: 'value', name: 'req/s', min: 0 },
    yAxis: { type: 'log', name: 'ms', logBase: 10, ...yName },
    series: [line('p50', (s) => s.latencyUs.p50), p99, ...interval, line('p99.9', (s) => s.latencyUs.p999)],
  };
}

/** A trend across runs (history): one line per series over the run labels. */
export function trendChart(title: string, unit: string, labels: readonly string[], series: { name: string; values: (number | null)[] }[], log = false): ChartOption {
  return {
    title: { text: title, left: 'center', textStyle: { fontSize: 13 } },
    legend,
    xAxis: { type: 'category', data: [...labels] },
    yAxis: log ? { type: 'log', name: unit, logBase: 10, ...yName } : { type: 'value', name: unit, ...yName },
    series: series.map((s) => ({ name: s.name, type: 'line', symbolSize: 6, connectNulls: false, data: s.values })),
  };
}

/** A timeline event drawn on a chart over time: where it happened (ms from the run's start) and its kind. */
export interface EventMark {
  tMs: number;
  label: string;
}

/**
 * The same chart with a dashed vertical line at each event, named by its kind. On a time axis the
 * line is at the event's time; on the heatmap's category axis, at the column holding it.
 */
export function withEventMarks(option: ChartOption, marks: readonly EventMark[]): ChartOption {
  if (marks.length === 0) return option;
  const axis = option.xAxis as { type?: string; data?: string[] } | undefined;
  const at = (tMs: number): number | undefined => {
    if (axis?.type !== 'category') return seconds(tMs);
    const columns = (axis.data ?? []).map(Number);
    let column: number | undefined;
    columns.forEach((startS, i) => {
      if (startS * 1000 <= tMs) column = i;
    });
    return column;
  };
  const data = marks.flatMap((m) => {
    const x = at(m.tMs);
    return x === undefined ? [] : [{ xAxis: x, name: m.label }];
  });
  const shown = ((option.series as { name?: string }[] | undefined) ?? []).map((s) => s.name);
  const series = [
    ...((option.series as unknown[] | undefined) ?? []),
    {
      name: 'events',
      type: 'line',
      data: [],
      markLine: { silent: true, symbol: 'none', lineStyle: { type: 'dashed', color: '#444' }, label: { formatter: '{b}', position: 'insideEndTop', fontSize: 10 }, data },
    },
  ];
  // The event lines are named where they are drawn; the legend keeps to the series.
  return { ...option, series, ...(option.legend ? { legend: { ...(option.legend as object), data: shown } } : {}) };
}
