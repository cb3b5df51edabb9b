import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HistogramLogReader, summarize, type Histogram } from '../../src/recorder/histograms.ts';
import { exportRecorderPart, IntervalMerger, mergeRecorderParts, type IntervalPart } from '../../src/recorder/merge.ts';
import type { IntervalResult } from '../../src/recorder/interval-digest.ts';
import { RunRecorder } from '../../src/recorder/run-recorder.ts';
import { createSchedule, emptyRequest } from '../../src/schedule/index.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { makeProfile } from '../helpers/profile.ts';
import { startStallingTarget } from '../helpers/targets.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-workers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** How hdr-histogram-js names the untagged lines of a log: the measured requests, without the per-kind and warm-up copies. */
const UNTAGGED = 'NO TAG';

describe('merging workers’ recorders', () => {
  it('is exact: two recorders with alternate requests merge into what one recorder of all of them holds', () => {
    // Constant arrivals 200 µs apart and latencies under 200 µs: every recorder sees its events in time order, as a driver does.
    const profile = makeProfile({
      name: 'merge',
      arrivals: 'constant',
      phases: [{ type: 'steady', rate: 5000, duration: '3s' }],
      mix: [
        { kind: 'a', weight: 1 },
        { kind: 'b', weight: 2 },
      ],
    } as never);
    const plan = createSchedule(profile).plan;
    const whole = new RunRecorder(plan, { intervalUs: 500_000 });
    const sent: IntervalPart[][] = [[], []];
    const halves = [0, 1].map(
      (w) => new RunRecorder(plan, { intervalUs: 500_000, onInterval: (interval, _latency, histograms) => sent[w]!.push({ interval, histograms: histograms.encode() }) }),
    );
    const schedule = createSchedule(profile);
    const r = emptyRequest();
    for (const rec of [whole, ...halves]) rec.reason('timeout');
    while (schedule.next(r)) {
      const latency = 1 + ((r.seq * 7919) % 190);
      const failed = r.seq % 13 === 0 ? 1 : 0;
      for (const rec of [whole, halves[r.seq % 2]!]) {
        rec.sent(r.intendedAtUs, r.intendedAtUs, r.client);
        rec.complete(r.intendedAtUs, r.intendedAtUs + 5, r.intendedAtUs + latency, r.client, r.kind, failed);
      }
    }
    for (const rec of [whole, ...halves]) rec.flush();
    let log = '';
    const merged = new RunRecorder(plan, { intervalUs: 500_000, hlog: (chunk) => (log += chunk) });
    // Worker 0 runs ahead: its intervals wait until worker 1 has sent the same ones, then merge in order.
    const merger = new IntervalMerger(merged, 2);
    for (const part of sent[0]!) merger.add(0, part);
    expect(merged.digest.summary().count).toBe(0);
    sent[1]!.forEach((part, i) => {
      merger.add(1, part);
      expect(merged.digest.summary().count).toBe(i + 1);
    });
    merger.finish(0);
    merger.finish(1);
    mergeRecorderParts(merged, halves.map(exportRecorderPart));
    // Exact to the histogram's precision: an added histogram knows its max only to its bucket.
    const bucketOf = (h: Histogram, v: number) => (h as unknown as { lowestEquivalentValue(v: number): number }).lowestEquivalentValue(v);
    const summary = (h: Histogram) => ({ ...summarize(h), max: bucketOf(h, h.maxValue) });
    expect(summary(merged.all.latency)).toEqual(summary(whole.all.latency));
    expect(summary(merged.byKind[1]!.latency)).toEqual(summary(whole.byKind[1]!.latency));
    expect(summary(merged.serviceTime)).toEqual(summary(whole.serviceTime));
    expect(merged.errorCounts[merged.reason('timeout')]).toBe(whole.errorCounts[whole.reason('timeout')]);
    expect(merged.sentCount).toBe(whole.sentCount);
    const intervalView = (i: IntervalResult) => [i.sent, i.ok, i.failed, i.latencyUs.p50, i.latencyUs.p99];
    expect(merged.digest.summary().series.map(intervalView)).toEqual(whole.digest.summary().series.map(intervalView));
    const reader = new HistogramLogReader(log);
    let logged = 0;
    for (let h = reader.nextIntervalHistogram(); h; h = reader.nextIntervalHistogram()) if (h.tag === UNTAGGED) logged += h.totalCount;
    expect(logged).toBe(whole.all.latency.totalCount);
  });
});

describe('--workers 2 against a real target', () => {
  it('splits the schedule into disjoint halves, merges them, and still reports the stall', async () => {
    const target = await startStallingTarget(100, 500);
    try {
      const profile = makeProfile({
        name: 'workers',
        arrivals: 'constant',
        phases: [{ type: 'steady', rate: 1000, duration: '2s' }],
        http: { connections: 8, pipelining: 16 },
      } as never);
      const out = join(scratch, 'w2');
      const { result } = await runProfile(profile, { target: target.url, outDir: out, workers: 2 });
      expect(result.requests.sent).toBe(2000);
      expect(result.requests.ok).toBe(2000);
      const perWorker = result.driver.transport?.perWorker ?? [];
      expect(perWorker.map((w) => (w.protocol === 'http' ? w.statusCodes['200'] : undefined))).toEqual([1000, 1000]);
      expect(result.intervals.series.reduce((a, i) => a + i.ok, 0)).toBe(2000);
      // The stall shows through the merge: p99 well above the 50 ms a half-length stall could explain.
      expect(result.latencyUs.p99).toBeGreaterThan(80_000);
      expect(result.generator?.cpu).toBeGreaterThan(0);
      const log = new HistogramLogReader(readFileSync(join(out, 'latency.hlog'), 'utf8'));
      let logged = 0;
      for (let h = log.nextIntervalHistogram(); h; h = log.nextIntervalHistogram()) if (h.tag === UNTAGGED) logged += h.totalCount;
      expect(logged).toBe(2000);
    } finally {
      await target.close();
    }
  });
});
