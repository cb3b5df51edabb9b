import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/profile/protocols/registry.ts';
import { planFigures } from '../../src/analysis/plan-check.ts';
import type { Qualification, StepOutcome } from '../../src/analysis/qualification.ts';
import { defineGauge, gaugeCatalog } from '../../src/recorder/gauges.ts';
import { newHistogram } from '../../src/recorder/histograms.ts';
import { IntervalMerger } from '../../src/recorder/merge.ts';
import { askedRateCurve, buildResult } from '../../src/recorder/result.ts';
import { type IntervalResult, RunRecorder } from '../../src/recorder/run-recorder.ts';
import { capacityChart, errorsOverTimeChart, GAUGES_PER_CHART, gaugeCharts, percentileSpectrumChart, throughputChart } from '../../src/report/charts.ts';
import { renderComparison } from '../../src/report/compare-report.ts';
import { markdownToHtml } from '../../src/report/markdown-html.ts';
import { renderPlan } from '../../src/report/plan.ts';
import { renderQualificationReport } from '../../src/report/qualification-report.ts';
import { percentileSpectrum } from '../../src/report/spectrum.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { runCharts } from '../../src/report/run-charts.ts';
import { resultWith } from '../analysis/realism/fixtures.ts';
import { makeProfile } from '../helpers/profile.ts';

type Series = { name: string; data: [number, number | null][]; step?: unknown; yAxisIndex?: number; markLine?: { data: { name: string; yAxis?: number }[] } };
type Axis = { name: string; position?: string; offset?: number };
const seriesOf = (option: unknown) => (option as { series: Series[] }).series;
const named = (option: unknown, name: string) => seriesOf(option).find((s) => s.name === name)!;

function profileOf(warmup: string, phases = [{ type: 'steady' as const, rate: 100, duration: '10s' }]) {
  return makeProfile({ name: 'p', warmup, phases, mix: [{ kind: 'get', weight: 1 }] });
}

function interval(tMs: number, counts: Partial<IntervalResult> = {}): IntervalResult {
  return { tMs, warmup: false, sent: 1000, ok: 1000, failed: 0, dropped: 0, goodputRps: 1000, latencyUs: { p50: 1, p99: 2, max: 3 }, gauges: {}, ...counts };
}

describe('the last, partial interval (the drain)', () => {
  it('records the time it covered, and the throughput chart divides by it instead of drawing a collapse', () => {
    const closed: IntervalResult[] = [];
    const recorder = new RunRecorder(createSchedule(profileOf('0s')).plan, { onInterval: (i) => closed.push(i) });
    for (let t = 0; t < 1_100_000; t += 10_000) {
      recorder.sent(t, t, 0);
      recorder.complete(t, t, t + 5_000, 0, 0, 0);
    }
    recorder.flush();
    expect(closed.map((i) => i.coveredMs)).toEqual([undefined, 95]);
    const ok = named(throughputChart(closed, 1000), 'ok').data;
    expect(ok[0]![1]).toBe(100);
    // 10 completions in the 95 ms the run lasted into its second interval: ~105/s, not 10/s.
    expect(ok[1]![1]).toBeCloseTo(105.3, 1);
  });
});

describe('the drain after the last send', () => {
  it('is left out of the over-time charts: only stragglers complete there, nothing is sent', () => {
    const base = resultWith();
    const drain = interval(70_000, { sent: 0, ok: 20, failed: 340, coveredMs: 451, errors: { timeout: 340 } });
    const charts = runCharts({ ...base, intervals: { ...base.intervals, series: [...base.intervals.series, drain] } }, undefined);
    for (const title of ['Throughput', 'Latency over time']) {
      const option = charts.find((c) => c.title === title)!.option;
      for (const s of seriesOf(option).filter((s) => s.name !== 'asked')) expect(Math.max(...s.data.map(([t]) => t))).toBe(69);
    }
  });
});

describe('errors by reason over time', () => {
  it('counts each interval’s failures and drops by reason, merges workers by name, and charts them per second', () => {
    const plan = createSchedule(profileOf('0s')).plan;
    const mergedIntervals: IntervalResult[] = [];
    const merged = new RunRecorder(plan, { onInterval: (i) => mergedIntervals.push(i) });
    const merger = new IntervalMerger(merged, 2);
    const worker = (index: number, reasonName: string) => {
      const r = new RunRecorder(plan, { onInterval: (interval, _latency, histograms) => merger.add(index, { interval, histograms: histograms.encode() }) });
      const code = r.reason(reasonName);
      r.complete(0, 0, 100_000, 0, 0, code);
      r.complete(0, 0, 200_000, 0, 0, code);
      r.dropped(1_500_000, 0, 0);
      r.complete(1_500_000, 1_500_000, 1_600_000, 0, 0, 0);
      r.advanceTo(2_000_000);
      merger.finish(index);
    };
    worker(0, 'timeout');
    worker(1, 'refused');
    expect(mergedIntervals.map((i) => i.errors)).toEqual([{ timeout: 2, refused: 2 }, { dropped: 2 }]);
    const chart = errorsOverTimeChart(mergedIntervals, 1000)!;
    expect(seriesOf(chart).map((s) => s.name)).toEqual(['dropped', 'refused', 'timeout']);
    expect(named(chart, 'timeout').data).toEqual([
      [0, 2],
      [1, 0],
    ]);
    expect(errorsOverTimeChart([interval(0)], 1000)).toBeUndefined();
  });
});

describe('the asked rate', () => {
  it('is the plan’s summed curve in result.json (warm-up included, steps as two corners) and drawn beside sent and ok', () => {
    const plan = createSchedule(
      profileOf('5s', [
        { type: 'steady', rate: 100, duration: '10s' },
        { type: 'ramp', from: 200, to: 400, duration: '10s' },
      ] as never),
    ).plan;
    expect(askedRateCurve(plan)).toEqual([
      [0, 100],
      [5000, 100],
      [15000, 100],
      [15000, 200],
      [25000, 400],
    ]);
    const chart = throughputChart([interval(0)], 1000, askedRateCurve(plan));
    expect(seriesOf(chart).map((s) => s.name)).toEqual(['asked', 'sent', 'ok', 'failed']);
    expect(named(chart, 'asked').data[3]).toEqual([15, 200]);
  });
});

describe('validate and run', () => {
  it('state the same expected request count, for the measured window, when there is a warm-up', () => {
    const profile = profileOf('5s');
    const { plan } = createSchedule(profile);
    const result = buildResult({
      profile,
      plan,
      target: 'model',
      recorder: new RunRecorder(plan),
      driver: { elapsedUs: 0, interrupted: false, loop: 'open', gauges: [] },
      startedAt: '2026-01-01T00:00:00.000Z',
      wall: { finishedAt: '2026-01-01T00:00:15.000Z', elapsedMs: 15_000 },
    });
    expect(result.requests.expected).toBe(1000);
    const printed = renderPlan(profile, plan, { figures: planFigures(profile, plan, { target: parseTarget('model') }), refusals: [] });
    expect(printed).toContain('1000 requests expected in the measured window (+ 500 during the warm-up)');
    expect(printed).toMatch(/\| default\s+\|\s+1 \|\s+1000 \|/);
  });
});

describe('the percentile spectrum', () => {
  it('draws a line through the true quantiles, with no floor held at the minimum', () => {
    const h = newHistogram();
    for (let v = 1000; v <= 100_000; v += 10) h.recordValue(v);
    const points = percentileSpectrum(h);
    const [line] = seriesOf(percentileSpectrumChart([{ name: 'all', points }]));
    expect(line!.step).toBeUndefined();
    // Samples inside the first decade, each the histogram's own quantile.
    const early = points.filter((p) => p.percentile > 5 && p.percentile < 50);
    expect(early.length).toBeGreaterThanOrEqual(5);
    for (const p of early) expect(p.valueUs).toBe(h.getValueAtPercentile(p.percentile));
    // The second drawn point is already well above the minimum (a uniform law rises from the start).
    expect(line!.data[1]![1]).toBeGreaterThan(5 * (line!.data[0]![1] as number));
  });
});

describe('gauge charts', () => {
  const specs = [
    defineGauge('shards', 'count', 'cache', ''),
    defineGauge('memoryPressure', 'ratio', 'cache', ''),
    defineGauge('nicBacklogMs', 'ms', 'cache', ''),
    defineGauge('shardLoadRps', 'rps', 'cache', ''),
  ];
  it('give every unit of a family its own axis (four here), each series on its unit’s axis', () => {
    const gauges = { 'shards.c': 20, 'memoryPressure.c': 0.5, 'nicBacklogMs.c': 3, 'shardLoadRps.c.hottest': 9000, 'shardLoadRps.c.others': 300 };
    const [chart] = gaugeCharts([interval(0, { gauges }), interval(1000, { gauges })], gaugeCatalog(specs));
    const axes = (chart!.option as { yAxis: Axis[] }).yAxis;
    expect(axes.map((a) => a.name)).toEqual(['count', 'ratio', 'ms', 'req/s']);
    expect(axes.slice(1).map((a) => [a.position, a.offset])).toEqual([
      ['right', 0],
      ['right', 64],
      ['right', 128],
    ]);
    const axisOf = (key: string) => axes[named(chart!.option, key).yAxisIndex!]!.name;
    expect(axisOf('shardLoadRps.c.hottest')).toBe('req/s');
    expect(axisOf('memoryPressure.c')).toBe('ratio');
    expect(axisOf('nicBacklogMs.c')).toBe('ms');
  });

  it('draw every gauge of a large family, over several charts', () => {
    const gauges = Object.fromEntries(Array.from({ length: GAUGES_PER_CHART + 3 }, (_, i) => [`shards.c${i}`, i]));
    const charts = gaugeCharts([interval(0, { gauges })], gaugeCatalog(specs));
    expect(charts.map((c) => c.title)).toEqual(['Cache shards, memory and NIC (1/2)', 'Cache shards, memory and NIC (2/2)']);
    expect(charts.flatMap((c) => seriesOf(c.option).map((s) => s.name)).sort()).toEqual(Object.keys(gauges).sort());
  });
});

describe('the qualification report', () => {
  const step = (askedRps: number, p99: number): StepOutcome => ({
    askedRps,
    achievedRps: askedRps,
    pass: p99 < 50_000,
    failedChecks: p99 < 50_000 ? [] : ['p99 ≤ 50ms'],
    latencyUs: { p50: 1000, p99, p999: p99 * 2, max: p99 * 3 },
    p99IntervalUs: { lowUs: p99 - 1000, highUs: p99 + 2000 },
    requests: 10_000,
    failed: 0,
    errorRate: 0,
    generatorLimited: false,
    durationMs: 10_000,
    dir: `steps/${askedRps}`,
  });
  const q: Qualification = {
    schema: 'stampede.qualification/1',
    profile: { name: 'q', description: '', file: 'q.yaml', sha256: '0'.repeat(64), overrides: [] },
    target: 'model',
    seed: 1,
    capacityRps: 100,
    expectedPeakRps: 80,
    headroom: 0.25,
    peakSource: 'production.peakRps',
    step: { durationMs: 10_000, warmupMs: 1000 },
    steps: [step(100, 20_000), step(200, 70_000)],
    interrupted: false,
    sloP99Us: 50_000,
    sloLatency: [
      { label: 'p99', maxUs: 50_000 },
      { label: 'p99.9 kind get', maxUs: 120_000 },
    ],
    verdict: 'PASS',
    reasons: [],
    flags: [],
    startedAt: '2026-01-01T00:00:00.000Z',
    wall: { finishedAt: '2026-01-01T00:00:00.000Z', elapsedMs: 0 },
  };

  it('prints each step’s p99 with its 99% confidence interval', () => {
    const md = renderQualificationReport(q);
    expect(md).toContain('p99 [99% interval]');
    expect(md).toContain('20ms [19ms, 22ms]');
    expect(md).toContain('70ms [69ms, 72ms]');
  });

  it('draws every SLO latency limit and each step’s interval on the capacity curve', () => {
    const chart = capacityChart({ steps: q.steps, sloLatency: q.sloLatency, peakRps: 80, capacityRps: 100 });
    const marks = named(chart, 'p99').markLine!.data.filter((m) => m.yAxis !== undefined);
    expect(marks.map((m) => [m.name, m.yAxis])).toEqual([
      ['SLO p99 50ms', 50],
      ['SLO p99.9 kind get 120ms', 120],
    ]);
    expect(named(chart, 'p99 99% interval').data).toEqual([
      [100, 19],
      [100, 22],
      [100, null],
      [200, 69],
      [200, 72],
      [200, null],
    ]);
  });
});

describe('the compare table', () => {
  it('stays one table with five columns when a cell holds a pipe (|z|)', () => {
    const side = (label: string) => ({ label, kind: 'run' as const, verdict: 'PASS', requests: 1000 });
    const md = renderComparison({
      baseline: side('a'),
      candidate: side('b'),
      verdict: 'no regression',
      notComparable: [],
      notes: [],
      regressed: false,
      rows: [{ metric: 'error rate', baseline: '0%', candidate: '0%', change: 'same', margin: 'two-proportion z = 0.00 (|z| > 2.33)' }],
    });
    const html = markdownToHtml(md);
    const rows = html.match(/<tr>[\s\S]*?<\/tr>/g)!;
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.match(/<t[dh][ >]/g)).toHaveLength(5);
    expect(html).toContain('<td>two-proportion z = 0.00 (|z| &gt; 2.33)</td>');
  });
});
