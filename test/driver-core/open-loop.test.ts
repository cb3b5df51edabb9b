import { describe, expect, it } from 'vitest';
import { OpenLoopRun, type OpenLoopOptions } from '../../src/driver/open-loop.ts';
import type { SenderMonitor } from '../../src/driver/run-health.ts';
import type { Transport } from '../../src/driver/transport.ts';
import { judgeGenerator } from '../../src/analysis/generator.ts';
import type { DriverReport, HttpTransportReport } from '../../src/recorder/driver-report.ts';
import type { GaugeSpec } from '../../src/recorder/gauges.ts';
import type { GeneratorSnapshot } from '../../src/generator/health.ts';
import { newHistogram, type Histogram } from '../../src/recorder/histograms.ts';
import { RunRecorder } from '../../src/recorder/run-recorder.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { segmentSchedule, WHOLE, type Segment } from '../../src/schedule/segment.ts';
import type { Plan, Schedule, ScheduledRequest } from '../../src/schedule/types.ts';
import { makeProfile } from '../helpers/profile.ts';
import { VirtualClock } from '../../src/driver/virtual-clock.ts';

/*
 * The open-loop pacer's rules, in virtual time against a fake transport: every count is exact and
 * nothing depends on how busy the machine is. Intended times are whole ms, so a pacer that is not
 * stalled wakes exactly on time and its dispatch lateness is 0.
 */

const profile = makeProfile({ name: 'open-loop', warmup: '0s', phases: [{ type: 'steady', rate: 1000, duration: '1s' }] });
const plan: Plan = createSchedule(profile).plan;

/** A schedule of requests at the given intended times (ms), seq in order. */
function listSchedule(timesMs: readonly number[]): Schedule {
  let seq = 0;
  return {
    plan,
    next(into: ScheduledRequest): boolean {
      if (seq >= timesMs.length) return false;
      into.seq = seq;
      into.intendedAtUs = timesMs[seq]! * 1000;
      into.client = 0;
      into.kind = 0;
      seq++;
      return true;
    },
  };
}

function range(count: number, fromMs = 0, stepMs = 1): number[] {
  return Array.from({ length: count }, (_, i) => fromMs + i * stepMs);
}

/** A histogram that also keeps every value in recording order, so a test can name each request's. */
function listingHistogram(): Histogram & { values: number[] } {
  const h = Object.assign(newHistogram(), { values: [] as number[] });
  const record = h.recordValue.bind(h);
  h.recordValue = (value: number) => {
    h.values.push(value);
    record(value);
  };
  return h;
}

/** The lateness histograms without the real process's CPU and event-loop lag (meaningless in virtual time). */
class LatenessMonitor implements SenderMonitor {
  readonly sendLateness = listingHistogram();
  readonly dispatchLateness = listingHistogram();
  start(): void {}
  stop(): void {}
  sampleGauges(): void {}
  snapshot(): GeneratorSnapshot {
    return { lagMeanMs: 0, lagP99Ms: 0, lagMaxMs: 0, cpu: 0, cpuPeak: 0 };
  }
}

/** How the fake target treats request `seq`; all times ms. */
interface Behaviour {
  /** From submit to the write on the wire (waiting for a connection). Default 0. */
  writeDelayMs?: (seq: number) => number;
  /** From the write (at `writtenAtMs`) to the response (≥ 1: a timer); undefined never answers. */
  responseMs: (seq: number, writtenAtMs: number) => number | undefined;
  /** The pacer's thread is busy this long inside submit (a stalled event loop). Default 0. */
  stallMs?: (seq: number) => number;
}

class FakeTransport implements Transport {
  readonly submitted: number[] = [];
  inFlightHighWater = 0;
  private readonly open = new Set<number>();
  run!: OpenLoopRun;

  constructor(
    private readonly clock: VirtualClock,
    private readonly behaviour: Behaviour,
  ) {}

  submit(slot: number, request: ScheduledRequest): void {
    const seq = request.seq;
    this.submitted.push(seq);
    this.submittedSinceGauges++;
    this.open.add(slot);
    this.inFlightHighWater = Math.max(this.inFlightHighWater, this.open.size);
    this.clock.stall(this.behaviour.stallMs?.(seq) ?? 0);
    const delay = this.behaviour.writeDelayMs?.(seq) ?? 0;
    if (delay > 0) this.clock.after(delay, () => this.write(slot, seq));
    else this.write(slot, seq);
  }

  async prepare(): Promise<void> {}
  beginBatch(): void {}
  tick(): void {}
  /** Like a real transport's per-interval counts (keys per shard): what it was handed since the last sample. */
  gauges(into: Record<string, number>): void {
    into['submitted'] = this.submittedSinceGauges;
    this.submittedSinceGauges = 0;
  }
  private submittedSinceGauges = 0;
  readonly gaugeSpecs: readonly GaugeSpec[] = [];
  report(): HttpTransportReport {
    return { protocol: 'http', connections: 1, pipelining: 1, connects: 1, protocolErrors: 0, statusCodes: {} };
  }
  waitedForConnection(): number {
    return 0;
  }

  close(reason: number): void {
    const now = this.run.nowUs();
    for (const slot of this.open) this.run.complete(slot, reason, now);
    this.open.clear();
  }

  private write(slot: number, seq: number): void {
    if (!this.open.has(slot)) return;
    this.run.markSent(slot, this.run.nowUs());
    const responseMs = this.behaviour.responseMs(seq, this.clock.nowMs());
    if (responseMs !== undefined) this.clock.after(responseMs, () => this.answer(slot));
  }

  private answer(slot: number): void {
    if (!this.open.delete(slot)) return;
    this.run.complete(slot, 0, this.run.nowUs());
  }
}

interface Outcome {
  report: DriverReport;
  recorder: RunRecorder;
  transport: FakeTransport;
  monitor: LatenessMonitor;
  unfinished: number;
}

async function runOpenLoop(timesMs: readonly number[], behaviour: Behaviour, options: Partial<OpenLoopOptions> & { abortAtMs?: number; segment?: Segment } = {}): Promise<Outcome> {
  const clock = new VirtualClock();
  const monitor = new LatenessMonitor();
  const recorder = new RunRecorder(plan, { intervalUs: 10_000 });
  const abort = new AbortController();
  if (options.abortAtMs === 0) abort.abort();
  else if (options.abortAtMs !== undefined) clock.after(options.abortAtMs, () => abort.abort());
  const context = { profile, schedule: segmentSchedule(listSchedule(timesMs), options.segment ?? WHOLE), recorder, signal: abort.signal };
  const run = new OpenLoopRun(context, { inFlightCap: 1000, drainUs: 1_000_000, ...options, clock, monitor });
  const transport = new FakeTransport(clock, behaviour);
  transport.run = run;
  const report = await clock.runUntil(run.execute(transport, abort.signal));
  const unfinished = recorder.errorCounts[recorder.reasons.indexOf('unfinished')] ?? 0;
  return { report, recorder, transport, monitor, unfinished };
}

describe('open-loop pacer: the in-flight cap', () => {
  it.each([
    { name: 'a burst over the cap', times: range(10), cap: 4, sent: 4, dropped: 6 },
    { name: 'the cap frees up once responses arrive', times: [...range(10), ...range(4, 200)], cap: 4, sent: 8, dropped: 6 },
    { name: 'a cap of one', times: range(10), cap: 1, sent: 1, dropped: 9 },
    { name: 'room for all', times: range(10), cap: 10, sent: 10, dropped: 0 },
  ])('$name: $sent sent, $dropped dropped', async ({ times, cap, sent, dropped }) => {
    const { report, recorder, transport } = await runOpenLoop(times, { responseMs: () => 100 }, { inFlightCap: cap });
    expect(report.generator!.dropped).toBe(dropped);
    expect(recorder.droppedCount).toBe(dropped);
    expect(recorder.sentCount).toBe(sent);
    expect(recorder.ok.ok).toBe(sent);
    expect(transport.inFlightHighWater).toBe(Math.min(cap, 10));
    expect(judgeGenerator(report.generator!).reasons.filter((r) => r.includes('dropped at the in-flight cap'))).toEqual(
      dropped > 0 ? [`${dropped} requests dropped at the in-flight cap (${cap}): the generator could not hold the offered load`] : [],
    );
  });
});

describe('open-loop pacer: intervals', () => {
  it('closes each 10 ms interval on time, sampling the in-flight gauge then, and the last one at the end', async () => {
    // Ten requests at 0..9 ms, each answered 100 ms later: ten in flight from 9 ms to 100 ms.
    const { recorder, report } = await runOpenLoop(range(10), { responseMs: () => 100 });
    expect(report.elapsedUs).toBe(109_000);
    expect(recorder.digest.summary().series.map((i) => i.tMs)).toEqual(range(10, 0, 10));
    expect(recorder.digest.summary().series.map((i) => i.gauges['inFlight'])).toEqual(Array(10).fill(10));
    expect(recorder.digest.summary().series.map((i) => i.sent)).toEqual([10, ...Array(9).fill(0)]);
  });
});

describe('open-loop pacer: interval boundaries', () => {
  it('closes an interval before handing the transport a request due after it, so a transport count lands in the same interval as its send', async () => {
    // One request per ms, never answered, and housekeeping every 7 ms: at the 10 and 20 ms
    // boundaries the pacer's wake-up is the first thing to run.
    const { recorder } = await runOpenLoop(range(30), { responseMs: () => undefined }, { tickMs: 7, drainUs: 0 });
    const series = recorder.digest.summary().series;
    expect(series.map((i) => i.sent)).toEqual([10, 10, 10]);
    expect(series.map((i) => i.gauges['submitted'])).toEqual([10, 10, 10]);
  });
});

describe('open-loop pacer: drain', () => {
  // Three requests at 0, 1, 2 ms; the schedule is exhausted at 2 ms; the drain allows 50 ms more,
  // checked on the 5 ms housekeeping tick, so the run ends at the 55 ms tick.
  it.each([
    { name: 'every response well before the limit', response: [10, 20, 30], ok: 3, unfinished: 0, elapsedUs: 32_000 },
    { name: 'one just before the limit', response: [10, 20, 50], ok: 3, unfinished: 0, elapsedUs: 52_000 },
    { name: 'one after the limit', response: [10, 20, 60], ok: 2, unfinished: 1, elapsedUs: 55_000 },
    { name: 'one never answered', response: [10, undefined, 30], ok: 2, unfinished: 1, elapsedUs: 55_000 },
    { name: 'none answered', response: [undefined, undefined, undefined], ok: 0, unfinished: 3, elapsedUs: 55_000 },
  ])('$name: $ok ok, $unfinished unfinished', async ({ response, ok, unfinished, elapsedUs }) => {
    const outcome = await runOpenLoop(range(3), { responseMs: (seq) => response[seq] }, { drainUs: 50_000 });
    expect(outcome.recorder.ok.ok).toBe(ok);
    expect(outcome.unfinished).toBe(unfinished);
    expect(outcome.recorder.sentCount).toBe(3);
    expect(outcome.report.elapsedUs).toBe(elapsedUs);
    expect(outcome.report.interrupted).toBe(false);
  });
});

describe('open-loop pacer: abort', () => {
  // One request per ms for 100 ms, each answered 5 ms after it is sent; aborted at 47.5 ms.
  it('stops sending at the abort, fails what is in flight as unfinished and keeps what was measured', async () => {
    const { report, recorder, transport, unfinished } = await runOpenLoop(range(100), { responseMs: () => 5 }, { abortAtMs: 47.5 });
    expect(report.interrupted).toBe(true);
    expect(report.elapsedUs).toBe(47_500);
    expect(transport.submitted).toEqual(range(48));
    expect(recorder.sentCount).toBe(48);
    expect(recorder.ok.ok).toBe(43); // sent at 0..42 ms, answered by 47 ms
    expect(unfinished).toBe(5);
  });

  it('an already aborted signal sends nothing', async () => {
    const { report, transport, recorder } = await runOpenLoop(range(10), { responseMs: () => 1 }, { abortAtMs: 0 });
    expect(report.interrupted).toBe(true);
    expect(report.elapsedUs).toBe(0);
    expect(transport.submitted).toEqual([]);
    expect(recorder.sentCount).toBe(0);
  });
});

describe('open-loop pacer: a segment of the schedule (a worker thread’s, a host’s)', () => {
  it.each([
    { index: 0, count: 1 },
    { index: 0, count: 3 },
    { index: 1, count: 3 },
    { index: 2, count: 3 },
    { index: 3, count: 4 },
  ])('segment $index of $count sends exactly seq ≡ $index (mod $count)', async ({ index, count }) => {
    const { transport, recorder } = await runOpenLoop(range(20), { responseMs: () => 2 }, { segment: { index, count } });
    const expected = range(20).filter((seq) => seq % count === index);
    expect(transport.submitted).toEqual(expected);
    expect(recorder.ok.ok).toBe(expected.length);
  });
});

describe('open-loop pacer: lateness split', () => {
  it('a transport that delays its writes: send lateness grows, dispatch lateness does not', async () => {
    const { monitor, report } = await runOpenLoop(range(10), { writeDelayMs: () => 3, responseMs: () => 1 });
    expect(monitor.dispatchLateness.values).toEqual(Array(10).fill(0));
    expect(monitor.sendLateness.values).toEqual(Array(10).fill(3000));
    expect(report.generator!.dispatchLatenessUs!.max).toBe(0);
  });

  it('a stalled pacer: requests due during the stall leave late, and both lateness figures show it', async () => {
    // The thread is busy 4 ms while submitting seq 2 (due at 2 ms): seq 2 is written at 6 ms, seq 3..6 are dispatched at 6 ms.
    const { monitor, transport } = await runOpenLoop(range(10), { stallMs: (seq) => (seq === 2 ? 4 : 0), responseMs: () => 1 });
    expect(transport.submitted).toEqual(range(10));
    expect(monitor.dispatchLateness.values).toEqual([0, 0, 0, 3000, 2000, 1000, 0, 0, 0, 0]);
    expect(monitor.sendLateness.values).toEqual([0, 0, 4000, 3000, 2000, 1000, 0, 0, 0, 0]);
  });

  it('a pacer that is never late and a transport that writes at once: both are zero', async () => {
    const { monitor } = await runOpenLoop(range(10), { responseMs: () => 1 });
    expect(monitor.dispatchLateness.values).toEqual(Array(10).fill(0));
    expect(monitor.sendLateness.values).toEqual(Array(10).fill(0));
  });
});

describe('open-loop pacer: latency is measured from the intended time', () => {
  it.each<{ name: string; behaviour: Behaviour; latencyUs: number; serviceUs: number }>([
    { name: 'on time', behaviour: { responseMs: () => 2 }, latencyUs: 2000, serviceUs: 2000 },
    { name: 'write delayed 3 ms', behaviour: { writeDelayMs: () => 3, responseMs: () => 2 }, latencyUs: 5000, serviceUs: 2000 },
    { name: 'pacer stalled 7 ms on its first request', behaviour: { stallMs: (seq) => (seq === 0 ? 7 : 0), responseMs: () => 2 }, latencyUs: 9000, serviceUs: 2000 },
  ])('$name: latency $latencyUs µs, service time $serviceUs µs', async ({ behaviour, latencyUs, serviceUs }) => {
    const { recorder } = await runOpenLoop([0], behaviour);
    expect(recorder.all.latency.maxValue).toBe(latencyUs);
    expect(recorder.all.latency.totalCount).toBe(1);
    expect(recorder.serviceTime.maxValue).toBe(serviceUs);
  });
});

describe('open-loop pacer: a target that stalls S ms every P ms', () => {
  it('reports the analytic p99 b + S − 0.01·P exactly (to the histogram precision)', async () => {
    // The derivation is in test/drivers/http.test.ts; there a real run can only be later than this.
    const [S, P, b] = [100, 500, 1];
    const stalling = (_seq: number, writtenAtMs: number) => b + Math.max(0, S - (writtenAtMs % P));
    const { recorder } = await runOpenLoop(range(3000), { responseMs: stalling });
    expect(recorder.ok.ok).toBe(3000);
    const p99 = recorder.all.latency.getValueAtPercentile(99);
    const analyticUs = (b + S - 0.01 * P) * 1000;
    expect(Math.abs(p99 - analyticUs)).toBeLessThanOrEqual(analyticUs / 1000);
    expect(recorder.all.latency.getValueAtPercentile(50)).toBeLessThanOrEqual(b * 1000 * 1.001);
  });
});
