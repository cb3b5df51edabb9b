import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunMetrics } from '../../src/metrics/exporter.ts';
import type { LiveInterval } from '../../src/pipeline/live.ts';
import { runProfile, type RunOutcome } from '../../src/pipeline/run.ts';
import type { IntervalResult } from '../../src/recorder/run-recorder.ts';
import { readIntervalLog } from '../../src/run-folder/index.ts';
import { makeProfile } from '../helpers/profile.ts';
import { exposedSeries, sample } from './openmetrics.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-metrics-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let outcome: RunOutcome;
/** Every interval of the run, as the run folder's intervals.jsonl holds them. */
const intervals: IntervalResult[] = [];
const lives: LiveInterval[] = [];
let text: string;

beforeAll(async () => {
  const profile = makeProfile({ name: 'live', seed: 7, warmup: '1s', phases: [{ type: 'steady', rate: 2000, duration: '3s' }] } as never);
  outcome = await runProfile(profile, { outDir: join(scratch, 'run'), reports: false, onInterval: (live) => lives.push(live) });
  for await (const interval of readIntervalLog(outcome.dir)) intervals.push(interval);
  const metrics = new RunMetrics();
  for (const live of lives) metrics.update(live);
  text = await metrics.text();
});

describe('the live snapshot of each interval', () => {
  it('arrives once per interval the result keeps, with phases in order and the plan’s totals', () => {
    expect(lives.map((l) => l.interval)).toEqual(intervals);
    expect(lives[0]!.phase).toBe('warm-up');
    expect(lives.some((l) => l.phase === 'measured')).toBe(true);
    expect(lives.every((l) => l.plannedUs === 4_000_000)).toBe(true);
    expect(lives[1]!.askedRps).toBeCloseTo(2000, 6);
  });

  it('counts measured requests as the result does, and its latency buckets are cumulative and end at the count', () => {
    const last = lives.at(-1)!;
    expect(last.totals.ok).toBe(outcome.result.requests.ok);
    expect(last.latency.count).toBe(outcome.result.requests.ok + outcome.result.requests.failed);
    const c = last.latency.cumulative;
    for (let i = 1; i < c.length; i++) expect(c[i]!).toBeGreaterThanOrEqual(c[i - 1]!);
    expect(c.at(-1)!).toBe(last.latency.count);
    // The median lies in the first bucket that holds half the requests.
    const medianBucket = c.findIndex((n) => n >= last.latency.count / 2);
    expect(last.latency.boundsUs[medianBucket]!).toBeGreaterThanOrEqual(outcome.result.latencyUs.p50 * 0.999);
  });
});

describe('OpenMetrics exposition', () => {
  it('is OpenMetrics text ending in # EOF', () => {
    expect(text.endsWith('# EOF\n')).toBe(true);
  });

  it('counts requests by outcome, kind and client as the result does', () => {
    const { result } = outcome;
    expect(sample(text, 'stampede_requests_total', { outcome: 'ok' })).toBe(result.requests.ok);
    const kind = Object.keys(result.byKind)[0]!;
    expect(sample(text, 'stampede_kind_requests_total', { kind, outcome: 'ok' })).toBe(result.byKind[kind]!.ok);
    const client = Object.keys(result.byClient)[0]!;
    expect(sample(text, 'stampede_client_requests_total', { client, outcome: 'ok' })).toBe(result.byClient[client]!.ok);
    expect(sample(text, 'stampede_sent_total', {})).toBe(intervals.reduce((n, i) => n + i.sent, 0));
  });

  it('has the last interval’s quantiles and a cumulative histogram that ends at its count', () => {
    const last = intervals.at(-1)!;
    expect(sample(text, 'stampede_interval_latency_seconds', { quantile: '0.99' })).toBeCloseTo(last.latencyUs.p99 / 1e6, 9);
    const count = sample(text, 'stampede_latency_seconds_count', {});
    expect(count).toBe(outcome.result.requests.ok + outcome.result.requests.failed);
    expect(sample(text, 'stampede_latency_seconds_bucket', { le: '+Inf' })).toBe(count);
    expect(text).toContain('# TYPE stampede_latency_seconds histogram');
  });

  it('exports every gauge of the run’s catalog as stampede_gauge_<name> with its help, family and component', () => {
    for (const spec of Object.values(outcome.result.gauges)) {
      expect(text).toContain(`# HELP stampede_gauge_${spec.name} ${spec.help} (${spec.unit})`);
    }
    expect(sample(text, 'stampede_gauge_inFlight', { family: 'queues' })).toBe(intervals.at(-1)!.gauges['inFlight']);
    expect(sample(text, 'stampede_gauge_queueDepth', { family: 'queues', component: 'api' })).toBeGreaterThanOrEqual(0);
    expect(exposedSeries(text).has('stampede_run_phase')).toBe(true);
  });
});
