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
import { declaredTypes, sample, sampleLabels } from './exposition.ts';

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
  metrics.finish();
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

describe('Prometheus exposition', () => {
  it('is the Prometheus text format, every series labelled with the run: profile, run (its start), segment, target', () => {
    expect(text).not.toContain('# EOF');
    const identity = { profile: 'live', run: outcome.result.startedAt, segment: '0/1', target: 'model' };
    expect(sample(text, 'stampede_run_info', identity)).toBe(1);
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))) for (const [k, v] of Object.entries(identity)) expect(line).toContain(`${k}="${v}"`);
  });

  it('counts requests by outcome, kind and client as the result does', () => {
    const { result } = outcome;
    expect(sample(text, 'stampede_requests_total', { outcome: 'ok' })).toBe(result.requests.ok);
    const kind = Object.keys(result.byKind)[0]!;
    expect(sample(text, 'stampede_kind_requests_total', { kind, outcome: 'ok' })).toBe(result.byKind[kind]!.ok);
    const client = Object.keys(result.byClient)[0]!;
    expect(sample(text, 'stampede_client_requests_total', { client, outcome: 'ok' })).toBe(result.byClient[client]!.ok);
    expect(sample(text, 'stampede_requests_sent_total', {})).toBe(intervals.reduce((n, i) => n + i.sent, 0));
    // 2,000 rps over the 1 s warm-up and 3 s measured.
    expect(sample(text, 'stampede_requests_asked_total', {})).toBeCloseTo(8000, 6);
  });

  it('has a cumulative latency histogram in seconds that ends at its count, and no interval quantiles', () => {
    const count = sample(text, 'stampede_latency_seconds_count', {});
    expect(count).toBe(outcome.result.requests.ok + outcome.result.requests.failed);
    expect(sample(text, 'stampede_latency_seconds_bucket', { le: '+Inf' })).toBe(count);
    expect(sample(text, 'stampede_latency_seconds_bucket', { le: '0.0001' })).toBeLessThanOrEqual(count);
    expect(declaredTypes(text).get('stampede_latency_seconds')).toBe('histogram');
    expect(text).not.toMatch(/quantile=/);
  });

  it('exports the run’s gauge catalog in snake_case and base units, with its help, family and component', () => {
    expect(sample(text, 'stampede_in_flight', { family: 'queues' })).toBe(intervals.at(-1)!.gauges['inFlight']);
    expect(sample(text, 'stampede_queue_depth', { family: 'queues', component: 'api' })).toBeGreaterThanOrEqual(0);
    expect(text).toContain(`# HELP stampede_queue_depth ${outcome.result.gauges['queueDepth']!.help}`);
    // The model's goodput per second becomes a count of the requests: rate() gives the rate back.
    expect(declaredTypes(text).get('stampede_goodput_total')).toBe('counter');
    const goodput = intervals.reduce((n, i) => n + i.gauges['goodputRps']! * ((i.coveredMs ?? 1000) / 1000), 0);
    expect(sample(text, 'stampede_goodput_total', {})).toBeCloseTo(goodput, 6);
    expect(sampleLabels(text, 'stampede_run_phase').map((l) => l['phase'])).toEqual(['warm-up', 'measured', 'drain', 'done']);
  });
});

describe('runs one after the other in one exporter', () => {
  it('a qualification’s steps (same run id) add up; another run starts its series from nothing', async () => {
    const metrics = new RunMetrics();
    const last = lives.at(-1)!;
    // Two steps: the same run, the second one's clock and totals back at the start.
    for (const live of [...lives, ...lives]) metrics.update(live);
    const twoSteps = await metrics.text();
    expect(sample(twoSteps, 'stampede_requests_total', { outcome: 'ok' })).toBe(2 * last.totals.ok);
    expect(sample(twoSteps, 'stampede_latency_seconds_count', {})).toBe(2 * last.latency.count);
    metrics.update({ ...last, run: { ...last.run, id: '2030-01-01T00:00:00.000Z' } });
    const another = await metrics.text();
    expect(sample(another, 'stampede_requests_total', { outcome: 'ok' })).toBe(last.totals.ok);
    expect(sampleLabels(another, 'stampede_run_info')).toEqual([{ profile: 'live', run: '2030-01-01T00:00:00.000Z', segment: '0/1', target: 'model' }]);
  });
});
