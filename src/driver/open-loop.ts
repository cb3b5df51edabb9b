import { GeneratorMonitor } from '../generator/health.ts';
import type { TargetSpec } from '../profile/protocols/registry.ts';
import type { DriverReport } from '../recorder/driver-report.ts';
import type { Recorder } from '../recorder/types.ts';
import type { Schedule, ScheduledRequest } from '../schedule/types.ts';
import { realClock, type Clock } from './clock.ts';
import { Pacer, type PacerSink } from './pacer.ts';
import type { ExtensionFactory } from './run-extension.ts';
import { RunHealth, type RawGeneratorHealth, type SenderMonitor } from './run-health.ts';
import { SlotTable } from './slot-table.ts';
import { passBarrier } from './start-barrier.ts';
import { timelineExtension } from './timeline/extension.ts';
import type { Transport, TransportRun } from './transport.ts';
import type { RunContext } from './types.ts';

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
  /** What plays beside the run (the profile's timeline); a run without one (priming) plays nothing. */
  extension?: ExtensionFactory;
  /** Runs while the transport connects, before the clock starts: JIT priming (prime.ts). */
  prime?: (() => Promise<unknown>) | undefined;
}

/**
 * Open-loop options as every real driver derives them: its target's timeline, the cap from its
 * profile section, a drain of its timeout plus a second, and the worker plumbing passed through.
 */
export function openLoopOptions(
  target: TargetSpec,
  settings: { inFlightCap: number; timeout: number },
  worker: Pick<OpenLoopOptions, 'awaitStart' | 'exportHealth'>,
): OpenLoopOptions {
  return {
    extension: timelineExtension(target),
    inFlightCap: settings.inFlightCap,
    drainUs: settings.timeout + 1_000_000,
    awaitStart: worker.awaitStart,
    exportHealth: worker.exportHealth,
  };
}

/**
 * The wall-clock open-loop run shared by the real drivers: the slot table, the pacer, the run's
 * health and its extension, joined around one transport. Every request is aimed at its intended
 * time; a request that cannot get an in-flight slot is dropped and counted, never delayed into a
 * later slot. Latency is measured from the intended time by the recorder; the transport reports
 * the actual write time.
 */
export class OpenLoopRun implements TransportRun, PacerSink {
  readonly recorder: Recorder;
  readonly schedule: Schedule;
  readonly inFlightCap: number;
  readonly sentAtUs: Float64Array;
  readonly kind: Int32Array;
  private readonly intendedAtUs: Float64Array;
  private readonly client: Int32Array;
  private readonly unfinishedReason: number;
  private readonly slots: SlotTable;
  private readonly pacer: Pacer;
  private readonly health: RunHealth;
  private readonly clock: Clock;
  private transport!: Transport;

  constructor(
    private readonly context: RunContext,
    private readonly options: OpenLoopOptions,
  ) {
    this.recorder = context.recorder;
    this.schedule = context.schedule;
    this.clock = options.clock ?? realClock;
    this.slots = new SlotTable(options.inFlightCap);
    this.inFlightCap = this.slots.capacity;
    this.intendedAtUs = this.slots.intendedAtUs;
    this.sentAtUs = this.slots.sentAtUs;
    this.client = this.slots.client;
    this.kind = this.slots.kind;
    this.pacer = new Pacer(this.clock, this.schedule, this.slots, this, { drainUs: options.drainUs, tickMs: options.tickMs ?? 5 });
    this.health = new RunHealth(options.monitor ?? new GeneratorMonitor(), this.slots);
    this.unfinishedReason = this.recorder.reason('unfinished');
  }

  nowUs(): number {
    return this.pacer.nowUs();
  }

  advance(): number {
    const now = this.nowUs();
    this.recorder.advanceTo(now);
    return now;
  }

  markSent(slot: number, nowUs: number): void {
    this.sentAtUs[slot] = nowUs;
    const intended = this.intendedAtUs[slot]!;
    this.health.sent(intended, nowUs);
    this.recorder.sent(intended, nowUs, this.client[slot]!);
  }

  waitingSinceUs(slot: number): number {
    return this.slots.waitingSinceUs(slot);
  }

  complete(slot: number, reason: number, nowUs: number): void {
    this.recorder.complete(this.intendedAtUs[slot]!, this.sentAtUs[slot]!, nowUs, this.client[slot]!, this.kind[slot]!, reason);
    this.slots.release(slot);
    this.pacer.released();
  }

  async execute(transport: Transport, signal: AbortSignal): Promise<DriverReport> {
    this.transport = transport;
    const extension = this.options.extension?.({ profile: this.context.profile, schedule: this.schedule, clock: this.clock, transport });
    this.pacer.startsAt(await passBarrier({ prepare: () => transport.prepare(), prime: this.options.prime, awaitStart: this.options.awaitStart }, this.clock));
    this.recorder.setGaugeSource(() => this.health.gauges(transport));
    this.context.declareGauges?.(this.health.gaugeSpecs(transport));
    extension?.start(() => this.nowUs() / 1000);
    this.health.start(this.schedule.plan.warmupUs);
    const interrupted = await this.pacer.run(signal);
    const endUs = this.nowUs();
    // Intervals that ended by now are closed while the connections are still there to be counted.
    this.recorder.advanceTo(endUs);
    // The measured window ends here: closing sockets, the timeline's commands and the files written
    // after are not the run's, and the last interval, flushed later, must not be charged with them.
    this.health.stop();
    transport.close(this.unfinishedReason);
    const extended = await extension?.finish(interrupted);
    const waitedForConnection = transport.waitedForConnection();
    this.options.exportHealth?.(this.health.raw(waitedForConnection));
    return {
      elapsedUs: endUs,
      interrupted,
      loop: 'open',
      gauges: this.health.gaugeSpecs(transport),
      transport: transport.report(),
      generator: this.health.figures(waitedForConnection),
      ...extended,
    };
  }

  beginBatch(nowUs: number): void {
    this.recorder.advanceTo(nowUs);
    this.transport.beginBatch();
  }

  dispatch(request: ScheduledRequest, slot: number, nowUs: number): void {
    this.health.dispatched(request.intendedAtUs, nowUs);
    if (slot >= 0) this.transport.submit(slot, request);
    else {
      this.health.droppedAtCap(request.intendedAtUs);
      this.recorder.dropped(request.intendedAtUs, request.client, request.kind);
    }
  }

  housekeep(nowUs: number): void {
    this.recorder.advanceTo(nowUs);
    this.transport.tick(nowUs);
  }
}
