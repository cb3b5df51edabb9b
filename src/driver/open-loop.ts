import { GENERATOR_GAUGES, GeneratorMonitor, generatorFigures, type GeneratorSnapshot } from '../generator/health.ts';
import type { ProtocolReport, TargetSpec } from '../profile/protocols/registry.ts';
import type { DriverReport } from '../recorder/driver-report.ts';
import { SHARED_GAUGES, gaugeKey, type GaugeSpec } from '../recorder/gauges.ts';
import { encodeIntoCompressedBase64 } from '../recorder/histograms.ts';
import type { Recorder } from '../recorder/types.ts';
import { emptyRequest, type Schedule, type ScheduledRequest } from '../schedule/types.ts';
import { realClock, type Clock, type ClockTimer } from './clock.ts';
import { RunStartError } from './errors.ts';
import type { RunContext } from './types.ts';
import { TimelineRunner, type RingControl } from './timeline/runner.ts';
import { planTimeline } from './timeline/steps.ts';

/**
 * What a real target's transport must do for the open-loop pacer. A transport owns its sockets and
 * wire format; the pacer owns time, the in-flight cap and the recorder.
 */
/** Longest a run waits for its connections before the clock starts; dials still pending then carry on. */
const PREPARE_LIMIT_MS = 2000;

/**
 * Resolves when every connection is up, or after PREPARE_LIMIT_MS, whichever comes first. A target
 * none of whose connections could be made (every dial refused or failed, on every server) cannot
 * take the run at all: that rejects with RunStartError, before the clock starts (exit 3). A dial
 * still pending at the limit, or a target that fails later, is a result to record instead.
 */
export async function dialBeforeStart(connections: readonly { preconnect(): Promise<unknown>; readonly connected: boolean }[]): Promise<void> {
  let settled = false;
  const dialed = Promise.all(connections.map((c) => c.preconnect())).then(() => (settled = true));
  await Promise.race([dialed, new Promise<void>((resolve) => setTimeout(resolve, PREPARE_LIMIT_MS).unref())]);
  if (settled && connections.length > 0 && connections.every((c) => !c.connected)) {
    throw new RunStartError('no connection could be made to any server before the run (refused or unreachable)');
  }
}

/** Connection failures every real driver reports with the same reason names. */
export const SOCKET_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  closed: 'closed',
  timeout: 'timeout',
  /** The server broke the protocol (a bad status line or frame, a response nobody asked for). */
  protocol: 'protocol_error',
};

export interface Transport {
  /** Hands one due request to the target. `request` (and its keys view) is valid only during the call. */
  submit(slot: number, request: ScheduledRequest): void;
  /** Opens connections before the clock starts, so dialing is not charged to the first requests. Never rejects. */
  prepare(): Promise<void>;
  /** A pacer wake-up begins: requests submitted until the next call may share a connection's write. */
  beginBatch(): void;
  /** Housekeeping every few ms: timeouts, reconnects. */
  tick(nowUs: number): void;
  /** Ends the run: fails whatever is still in flight with `reason` and closes every socket. */
  close(reason: number): void;
  /** Interval gauges (connections, hits, …); called once per interval. */
  gauges(into: Record<string, number>): void;
  /** The specs of every gauge `gauges` writes. */
  readonly gaugeSpecs: readonly GaugeSpec[];
  report(): ProtocolReport;
  /** Requests that waited for a free connection slot before their write (backpressure on the generator). */
  waitedForConnection(): number;
  /** The client's ring, for a protocol whose timeline moves servers in and out of it (its spec's timeline.ring). */
  readonly ring?: RingControl;
}

export interface OpenLoopOptions {
  /** Most requests in flight (sent or waiting for a connection) at once; a due request beyond it is dropped. */
  inFlightCap: number;
  /** After the schedule ends, how long to wait for responses before failing the rest as `unfinished`. */
  drainUs: number;
  /** Housekeeping period (timeouts, interval closes), ms. */
  tickMs?: number;
  /**
   * Called once the transport is connected; resolves to the run's start as epoch ms (the clock's
   * origin + its reading), shared by every worker. Default: the run starts when connected.
   */
  awaitStart?: (() => Promise<number>) | undefined;
  /** Receives the generator's raw figures at the end, for merging across workers. */
  exportHealth?: ((raw: RawGeneratorHealth) => void) | undefined;
  /** Time and wake-ups; virtual in tests. Default: performance.now() and Node's timers. */
  clock?: Clock;
  /**
   * Watches the sending thread (lag, CPU) and holds the lateness histograms. Default: a
   * GeneratorMonitor; tests on a virtual clock pass one that does not read the real process.
   */
  monitor?: SenderMonitor;
  /** The target the profile's timeline is planned for; a run without one (priming) plays none. */
  target?: TargetSpec;
  /** Runs while the transport connects, before the clock starts: JIT priming (prime.ts). */
  prime?: (() => Promise<unknown>) | undefined;
}

/** What the pacer needs of a generator monitor (GeneratorMonitor is the real one). */
export type SenderMonitor = Pick<GeneratorMonitor, 'sendLateness' | 'dispatchLateness' | 'start' | 'sampleGauges' | 'stop' | 'snapshot'>;

/**
 * Open-loop options as every real driver derives them: its target, the cap from its profile section,
 * a drain of its timeout plus a second, and the worker plumbing passed through.
 */
export function openLoopOptions(
  target: TargetSpec,
  settings: { inFlightCap: number; timeout: number },
  worker: Pick<OpenLoopOptions, 'awaitStart' | 'exportHealth'>,
): OpenLoopOptions {
  return { target, inFlightCap: settings.inFlightCap, drainUs: settings.timeout + 1_000_000, awaitStart: worker.awaitStart, exportHealth: worker.exportHealth };
}

/** The generator figures a worker ships so the main thread can merge them exactly. */
export interface RawGeneratorHealth {
  snapshot: GeneratorSnapshot;
  sendLateness: string;
  dispatchLateness: string;
  dropped: number;
  inFlightCap: number;
  waitedForConnection: number;
}

/** Due requests handled per wake-up before yielding to socket I/O, so responses are read while behind. */
const MAX_DISPATCH_PER_WAKE = 2048;
/**
 * The pacer never polls: it sleeps on a timer (Node's granularity is 1 ms) and wakes up to ~1 ms
 * late, then sends everything due in one batch — one write per connection instead of one per
 * request, which is what lets one core keep up with wrk. Polling with setImmediate would shave the
 * slip but burn the core and turn every request into its own syscall. The slip is measured
 * (dispatchLatenessUs, sendLatenessUs) and is part of every latency, never hidden.
 */
const SPIN_BELOW_US = 0;

/**
 * The wall-clock open-loop pacer shared by the real drivers. Every request is aimed at its
 * intended time; one wake-up dispatches every request due (no timer per request); a request that
 * cannot get an in-flight slot is dropped and counted, never delayed into a later slot. Latency is
 * measured from the intended time by the recorder; the transport reports the actual write time.
 *
 * In-flight state lives in preallocated typed arrays indexed by slot, so the hot path allocates
 * nothing of its own.
 */
export class OpenLoopRun {
  readonly recorder: Recorder;
  readonly monitor: SenderMonitor;
  readonly intendedAtUs: Float64Array;
  readonly sentAtUs: Float64Array;
  readonly client: Int32Array;
  readonly kind: Int32Array;
  /** Free in-flight slots, as a stack. */
  private readonly free: Int32Array;
  private freeTop: number;
  readonly unfinishedReason: number;
  readonly schedule: Schedule;
  private readonly pending = emptyRequest();
  private hasPending = false;
  private readonly clock: Clock;
  private t0Ms: number;
  private transport!: Transport;
  private wake: ClockTimer | undefined;
  private housekeeping: ClockTimer | undefined;
  private finish: (() => void) | undefined;
  private exhaustedAtUs = -1;
  private interrupted = false;
  private dropped = 0;
  /** Lateness is recorded for measured requests only; the warm-up is where JIT and caches settle. */
  private warmupUs = 0;
  readonly inFlightCap: number;
  private readonly declareGauges: RunContext['declareGauges'];
  private readonly profile: RunContext['profile'];

  constructor(
    context: RunContext,
    private readonly options: OpenLoopOptions,
  ) {
    this.recorder = context.recorder;
    this.schedule = context.schedule;
    this.declareGauges = context.declareGauges;
    this.profile = context.profile;
    this.clock = options.clock ?? realClock;
    this.t0Ms = this.clock.nowMs();
    this.monitor = options.monitor ?? new GeneratorMonitor();
    const cap = Math.max(1, options.inFlightCap);
    this.inFlightCap = cap;
    this.intendedAtUs = new Float64Array(cap);
    this.sentAtUs = new Float64Array(cap);
    this.client = new Int32Array(cap);
    this.kind = new Int32Array(cap);
    this.free = new Int32Array(cap);
    for (let i = 0; i < cap; i++) this.free[i] = cap - 1 - i;
    this.freeTop = cap;
    this.unfinishedReason = this.recorder.reason('unfinished');
  }

  /** µs since the run started (integer). */
  nowUs(): number {
    return Math.floor((this.clock.nowMs() - this.t0Ms) * 1000);
  }

  /**
   * µs since the run started, with every interval that ended by then closed. A transport calls it
   * before changing a count an interval gauge samples (keys per shard, hits), so the first request
   * or response after a boundary lands in its own interval, not in the one closing.
   */
  advance(): number {
    const now = this.nowUs();
    this.recorder.advanceTo(now);
    return now;
  }

  get inFlight(): number {
    return this.inFlightCap - this.freeTop;
  }

  /** The transport wrote slot's request to a connected socket now. */
  markSent(slot: number, nowUs: number): void {
    this.sentAtUs[slot] = nowUs;
    const intended = this.intendedAtUs[slot]!;
    const late = nowUs - intended;
    if (intended >= this.warmupUs) this.monitor.sendLateness.recordValue(Math.max(late, 0));
    this.recorder.sent(intended, nowUs, this.client[slot]!);
  }

  /** Since when slot's request has waited for its answer: its write, or its intended time while it waits for a connection. */
  waitingSinceUs(slot: number): number {
    const sent = this.sentAtUs[slot]!;
    return sent >= 0 ? sent : this.intendedAtUs[slot]!;
  }

  /**
   * Slot's request finished (reason 0 = ok). One that never reached the wire (refused while
   * dialing, still waiting for a connection at the end) goes to the recorder with sentAtUs −1:
   * failed, but not sent.
   */
  complete(slot: number, reason: number, nowUs: number): void {
    this.recorder.complete(this.intendedAtUs[slot]!, this.sentAtUs[slot]!, nowUs, this.client[slot]!, this.kind[slot]!, reason);
    this.free[this.freeTop++] = slot;
    if (this.exhaustedAtUs >= 0 && this.freeTop === this.inFlightCap) this.finish?.();
  }

  async execute(transport: Transport, signal: AbortSignal): Promise<DriverReport> {
    this.transport = transport;
    // Planned before any connection: a timeline the target cannot play is refused with nothing to close.
    const timeline = this.timelineFor(transport);
    await Promise.all([transport.prepare(), this.options.prime?.()]);
    const startAt = this.options.awaitStart ? await this.options.awaitStart() : undefined;
    this.t0Ms = startAt === undefined ? this.clock.nowMs() : startAt - this.clock.originEpochMs;
    this.warmupUs = this.schedule.plan.warmupUs;
    this.recorder.setGaugeSource(() => this.gauges());
    this.declareGauges?.(this.gaugeSpecs());
    timeline?.start(() => this.nowUs() / 1000);
    this.monitor.start(this.warmupUs);
    const onAbort = () => {
      this.interrupted = true;
      this.finish?.();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const done = new Promise<void>((resolve) => (this.finish = resolve));
    this.pull();
    this.housekeeping = this.clock.every(this.options.tickMs ?? 5, () => this.housekeep());
    if (signal.aborted) onAbort();
    else this.loop();
    await done;
    signal.removeEventListener('abort', onAbort);
    this.stopTimers();
    const endUs = this.nowUs();
    // Intervals that ended by now are closed while the connections are still there to be counted.
    this.recorder.advanceTo(endUs);
    transport.close(this.unfinishedReason);
    const steps = await timeline?.finish(this.interrupted);
    this.monitor.stop();
    const waitedForConnection = transport.waitedForConnection();
    this.options.exportHealth?.({
      snapshot: this.monitor.snapshot(),
      sendLateness: encodeIntoCompressedBase64(this.monitor.sendLateness),
      dispatchLateness: encodeIntoCompressedBase64(this.monitor.dispatchLateness),
      dropped: this.dropped,
      inFlightCap: this.inFlightCap,
      waitedForConnection,
    });
    return {
      elapsedUs: endUs,
      interrupted: this.interrupted,
      loop: 'open',
      gauges: this.gaugeSpecs(),
      transport: transport.report(),
      generator: generatorFigures({
        snapshots: [this.monitor.snapshot()],
        sendLateness: this.monitor.sendLateness,
        dispatchLateness: this.monitor.dispatchLateness,
        dropped: this.dropped,
        inFlightCap: this.inFlightCap,
        waitedForConnection,
      }),
      ...(steps && { timeline: steps }),
    };
  }

  /** The profile's timeline on this run's clock, or undefined when it has none. */
  private timelineFor(transport: Transport): TimelineRunner | undefined {
    const events = this.profile.topology?.timeline ?? [];
    const target = this.options.target;
    if (events.length === 0 || target === undefined) return undefined;
    const steps = planTimeline({ events, target, clients: this.profile.clients.map((c) => c.name) });
    // Every thread and host changes its own client ring; a command runs once, from the first segment.
    return new TimelineRunner(steps, this.clock, transport.ring, (this.schedule.segment?.index ?? 0) === 0);
  }

  private gaugeSpecs(): GaugeSpec[] {
    return [SHARED_GAUGES.inFlight, ...Object.values(GENERATOR_GAUGES), ...this.transport.gaugeSpecs];
  }

  private gauges(): Record<string, number> {
    const g: Record<string, number> = { [gaugeKey(SHARED_GAUGES.inFlight)]: this.inFlight };
    this.monitor.sampleGauges(g);
    this.transport.gauges(g);
    return g;
  }

  private pull(): void {
    if (!this.schedule.next(this.pending)) {
      this.hasPending = false;
      this.exhaustedAtUs = this.nowUs();
      if (this.freeTop === this.inFlightCap) this.finish?.();
      return;
    }
    this.hasPending = true;
  }

  /** One wake-up: dispatch every request that is due, then sleep until the next one. */
  private readonly loop = (): void => {
    this.wake = undefined;
    if (this.interrupted) return;
    const now = this.advance();
    const pending = this.pending;
    let handled = 0;
    this.transport.beginBatch();
    while (this.hasPending && pending.intendedAtUs <= now && handled < MAX_DISPATCH_PER_WAKE) {
      this.dispatch(pending, now);
      handled++;
      this.pull();
    }
    if (!this.hasPending) return;
    const waitUs = pending.intendedAtUs - this.nowUs();
    // A negative delay wakes after pending I/O; a timer fires no earlier than asked, rounded up to
    // whole ms: ask for the whole ms before it.
    this.wake = this.clock.after(waitUs < SPIN_BELOW_US ? -1 : Math.floor(waitUs / 1000), this.loop);
  };

  private dispatch(request: ScheduledRequest, nowUs: number): void {
    const late = nowUs - request.intendedAtUs;
    if (request.intendedAtUs >= this.warmupUs) this.monitor.dispatchLateness.recordValue(Math.max(late, 0));
    if (this.freeTop === 0) {
      if (request.intendedAtUs >= this.warmupUs) this.dropped++;
      this.recorder.dropped(request.intendedAtUs, request.client, request.kind);
      return;
    }
    const slot = this.free[--this.freeTop]!;
    this.intendedAtUs[slot] = request.intendedAtUs;
    this.sentAtUs[slot] = -1;
    this.client[slot] = request.client;
    this.kind[slot] = request.kind;
    this.transport.submit(slot, request);
  }

  private housekeep(): void {
    const now = this.nowUs();
    this.recorder.advanceTo(now);
    this.transport.tick(now);
    if (this.exhaustedAtUs >= 0 && now - this.exhaustedAtUs > this.options.drainUs) this.finish?.();
  }

  private stopTimers(): void {
    this.wake?.cancel();
    this.wake = undefined;
    this.housekeeping?.cancel();
  }
}
