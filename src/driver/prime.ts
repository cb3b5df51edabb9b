import { GeneratorMonitor } from '../generator/health.ts';
import type { HttpTransportReport } from '../recorder/driver-report.ts';
import { RunRecorder } from '../recorder/run-recorder.ts';
import type { Plan, Schedule, ScheduledRequest } from '../schedule/types.ts';
import { OpenLoopRun } from './open-loop.ts';
import type { Transport, TransportRun } from './transport.ts';
import type { RunContext } from './types.ts';
import { VirtualClock } from './virtual-clock.ts';

/*
 * JIT priming. V8 compiles the pacer and the recorder for the paths they have taken so far. The
 * first interval close, the first measured request after the warm-up, the first failure or drop
 * each took a path never taken before: the optimized code was thrown away on the sending thread
 * (a deoptimization, plus every function that had inlined a field first written then), and at
 * 120k req/s the thread fell 20–50 ms behind in the run's first and first measured seconds — a
 * transient of the generator charged to the target's p99. So before the clock starts, every such
 * path is run once on a throwaway run in virtual time: warm-up and measured requests, interval
 * closes with their log lines, failures, drops at the cap, the drain. Nothing of it reaches the
 * real run but compiled code.
 */

const PRIMING_INTERVAL_US = 10_000;
const PRIMING_WARMUP_US = 20_000;
const PRIMING_DURATION_US = 40_000;
/** 200k req/s against a cap of 128 answered once per 1 ms wake-up: most wake-ups drop some. */
const PRIMING_SPACING_US = 5;
const PRIMING_CAP = 128;
/** One completion in this many fails. */
const PRIMING_FAILURE_EVERY = 13;

let primed: Promise<unknown> | undefined;

/** Primes this thread's open-loop path once (each worker thread is its own JIT); later calls wait for the first. */
export function primeOpenLoop(context: Pick<RunContext, 'profile' | 'schedule'>): Promise<unknown> {
  primed ??= primingRun(context.schedule.plan, context.profile);
  return primed;
}

/** The throwaway run itself, resolved with its recorder (what it went through). */
export async function primingRun(plan: Plan, profile: RunContext['profile']): Promise<RunRecorder> {
  const primingPlan: Plan = { ...plan, warmupUs: PRIMING_WARMUP_US, durationUs: PRIMING_DURATION_US, totalUs: PRIMING_WARMUP_US + PRIMING_DURATION_US };
  const recorder = new RunRecorder(primingPlan, { intervalUs: PRIMING_INTERVAL_US, hlog: () => {}, onInterval: () => {} });
  const clock = new VirtualClock();
  const signal = new AbortController().signal;
  // No timeline: priming must never change a ring or run a command.
  const context = { profile: { ...profile, topology: undefined }, schedule: syntheticSchedule(primingPlan), recorder, signal };
  const run = new OpenLoopRun(context, { inFlightCap: PRIMING_CAP, drainUs: PRIMING_INTERVAL_US, clock, monitor: new GeneratorMonitor() });
  await clock.runUntil(run.execute(new PrimingTransport(run, recorder.reason('primed')), signal));
  return recorder;
}

/** Evenly spaced requests over the priming plan, every client and kind in turn. */
function syntheticSchedule(plan: Plan): Schedule {
  let seq = 0;
  const clients = Math.max(1, plan.clients.length);
  const kinds = Math.max(1, plan.kinds.length);
  return {
    plan,
    next(into: ScheduledRequest): boolean {
      const at = seq * PRIMING_SPACING_US;
      if (at >= plan.totalUs) return false;
      into.seq = seq;
      into.intendedAtUs = at;
      into.client = seq % clients;
      into.kind = seq % kinds;
      into.batchSize = 1;
      seq++;
      return true;
    },
  };
}

/** Writes every request at once and answers it at the next wake-up; the last ones are left for the drain. */
class PrimingTransport implements Transport {
  private readonly open: number[] = [];
  private completions = 0;
  readonly gaugeSpecs = [];

  constructor(
    private readonly run: TransportRun,
    private readonly failure: number,
  ) {}

  submit(slot: number): void {
    this.run.markSent(slot, this.run.nowUs());
    this.open.push(slot);
  }

  beginBatch(): void {
    this.answer(this.run.nowUs());
  }

  tick(): void {}

  close(reason: number): void {
    const now = this.run.nowUs();
    for (const slot of this.open.splice(0)) this.run.complete(slot, reason, now);
  }

  async prepare(): Promise<void> {}
  gauges(): void {}
  waitedForConnection(): number {
    return 0;
  }
  report(): HttpTransportReport {
    return { protocol: 'http', connections: 1, pipelining: 1, connects: 1, protocolErrors: 0, statusCodes: {} };
  }

  private answer(nowUs: number): void {
    for (const slot of this.open.splice(0)) this.run.complete(slot, ++this.completions % PRIMING_FAILURE_EVERY === 0 ? this.failure : 0, nowUs);
  }
}
