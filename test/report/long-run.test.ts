import { describe, expect, it } from 'vitest';
import { analyseRun } from '../../src/analysis/analyse-run.ts';
import type { LoggedInterval } from '../../src/recorder/latency-log.ts';
import { digestOf } from '../../src/recorder/interval-digest.ts';
import type { IntervalResult } from '../../src/recorder/run-recorder.ts';
import { throughputChart } from '../../src/report/charts.ts';
import { downsample, MAX_SERIES_POINTS } from '../../src/report/downsample.ts';
import { renderRunReports } from '../../src/report/run-reports.ts';
import { renderSummary } from '../../src/report/summary.ts';
import { profileWith, resultWith } from '../analysis/realism/fixtures.ts';

/*
 * 200,000 intervals: `--interval 10us` on a 2 s run, or a day at 0.5 s. Every stage that reads the
 * intervals must loop over them: a Math.max(...values) or push(...values) over this many overflows
 * the stack, which before lost result.json.
 */
const INTERVALS = 200_000;

function longIntervals(): IntervalResult[] {
  const intervals: IntervalResult[] = new Array(INTERVALS);
  for (let i = 0; i < INTERVALS; i++) {
    // One spike, at interval 123,457: downsampling must keep it.
    const spike = i === 123_457;
    intervals[i] = {
      tMs: i / 100,
      warmup: false,
      sent: 10,
      ok: 10,
      failed: 0,
      dropped: 0,
      goodputRps: 1000,
      latencyUs: { p50: 2000, p99: spike ? 900_000 : 20_000 + (i % 7), max: spike ? 950_000 : 40_000 },
      gauges: { 'hitRatio.cache': 0.95, inFlight: spike ? 5000 : 3 + (i % 5) },
    };
  }
  return intervals;
}

/** The result of that run: what result.json keeps of its intervals is the bounded digest. */
function longResult() {
  return resultWith({ intervals: digestOf(longIntervals(), 0.01) });
}

function longLog(): LoggedInterval[] {
  const log: LoggedInterval[] = new Array(INTERVALS);
  for (let i = 0; i < INTERVALS; i++)
    log[i] = {
      tMs: i / 100,
      counts: [
        [2000 + (i % 100), 9],
        [20_000, 1],
      ],
    };
  return log;
}

describe('a run of 200,000 intervals', () => {
  it('goes through the summary, the analysis and both reports without a stack overflow, with charts of bounded size', () => {
    const result = longResult();
    const analysis = analyseRun(result, profileWith({}));
    const summary = renderSummary(result, analysis);
    expect(summary).toMatch(/\| inFlight\s+\|\s+3 \|\s+5000 \|/);
    const { markdown, html } = renderRunReports({ result, analysis, latencyLog: longLog() });
    expect(markdown.split('\n')[0]).toBe(`# realistic: ${analysis.verdict}`);
    expect(html).toContain('Latency heatmap');
    // Every series capped: the page stays small however long the run (a point per interval would be tens of MB).
    expect(html.length).toBeLessThan(3_000_000);
  });

  it('charts a long series with at most MAX_SERIES_POINTS points, keeping its spike', () => {
    const option = throughputChart(longIntervals(), 10) as { series: { data: [number, number][] }[] };
    for (const s of option.series) expect(s.data.length).toBeLessThanOrEqual(MAX_SERIES_POINTS);
    const points = longIntervals().map((i): [number, number] => [i.tMs, i.latencyUs.p99]);
    const kept = downsample(points);
    expect(kept.length).toBeLessThanOrEqual(MAX_SERIES_POINTS);
    expect(kept).toContainEqual([1234.57, 900_000]);
    // In time order, and the lowest value kept too.
    expect(kept.every((p, i) => i === 0 || p[0] > kept[i - 1]![0])).toBe(true);
    expect(Math.min(...kept.map((p) => p[1]))).toBe(20_000);
  });

  it('leaves a short series as it is', () => {
    const points: [number, number][] = [
      [0, 1],
      [1, 5],
      [2, 2],
    ];
    expect(downsample(points)).toEqual(points);
  });
});
