import { GENERATOR_GAUGES, generatorFigures, type GeneratorMonitor, type GeneratorSnapshot } from '../generator/health.ts';
import type { GeneratorFigures } from '../recorder/driver-report.ts';
import { SHARED_GAUGES, gaugeKey, type GaugeSpec } from '../recorder/gauges.ts';
import { encodeIntoCompressedBase64 } from '../recorder/histograms.ts';
import type { SlotTable } from './slot-table.ts';

/** What a run needs of a generator monitor (GeneratorMonitor is the real one). */
export type SenderMonitor = Pick<GeneratorMonitor, 'sendLateness' | 'dispatchLateness' | 'start' | 'sampleGauges' | 'stop' | 'snapshot'>;

/** The generator figures a worker ships so the main thread can merge them exactly. */
export interface RawGeneratorHealth {
  snapshot: GeneratorSnapshot;
  sendLateness: string;
  dispatchLateness: string;
  dropped: number;
  inFlightCap: number;
  waitedForConnection: number;
}

/** The gauges a transport adds to the run's. */
export interface GaugeSource {
  /** Interval gauges (connections, hits, …); called once per interval. */
  gauges(into: Record<string, number>): void;
  /** The specs of every gauge `gauges` writes. */
  readonly gaugeSpecs: readonly GaugeSpec[];
}

/**
 * The sending thread's health over a run, kept apart from pacing: how late requests were
 * dispatched and sent, how many were dropped at the in-flight cap, the interval gauges (in flight,
 * the generator's, the transport's) and the figures at the end. Lateness and drops count measured
 * requests only: the warm-up is where JIT and caches settle.
 */
export class RunHealth {
  private dropped = 0;
  private warmupUs = 0;

  constructor(
    private readonly monitor: SenderMonitor,
    private readonly slots: SlotTable,
  ) {}

  /** The run's clock starts; requests due from `warmupUs` on are measured. */
  start(warmupUs: number): void {
    this.warmupUs = warmupUs;
    this.monitor.start(warmupUs);
  }

  /** The pacer handed on (or dropped) a request due at `intendedAtUs`, at `nowUs`. */
  dispatched(intendedAtUs: number, nowUs: number): void {
    if (intendedAtUs >= this.warmupUs) this.monitor.dispatchLateness.recordValue(Math.max(nowUs - intendedAtUs, 0));
  }

  /** A request due at `intendedAtUs` reached the wire at `nowUs`. */
  sent(intendedAtUs: number, nowUs: number): void {
    if (intendedAtUs >= this.warmupUs) this.monitor.sendLateness.recordValue(Math.max(nowUs - intendedAtUs, 0));
  }

  /** A request due at `intendedAtUs` found every in-flight slot taken. */
  droppedAtCap(intendedAtUs: number): void {
    if (intendedAtUs >= this.warmupUs) this.dropped++;
  }

  /** The measured window ended: the monitor's run-long and last-interval readings stop here. */
  stop(): void {
    this.monitor.stop();
  }

  gaugeSpecs(transport: GaugeSource): GaugeSpec[] {
    return [SHARED_GAUGES.inFlight, ...Object.values(GENERATOR_GAUGES), ...transport.gaugeSpecs];
  }

  /** One interval's gauges; called once per interval (allocates one small object). */
  gauges(transport: GaugeSource): Record<string, number> {
    const g: Record<string, number> = { [gaugeKey(SHARED_GAUGES.inFlight)]: this.slots.inFlight };
    this.monitor.sampleGauges(g);
    transport.gauges(g);
    return g;
  }

  /** This thread's figures raw, for a worker to ship. */
  raw(waitedForConnection: number): RawGeneratorHealth {
    return {
      snapshot: this.monitor.snapshot(),
      sendLateness: encodeIntoCompressedBase64(this.monitor.sendLateness),
      dispatchLateness: encodeIntoCompressedBase64(this.monitor.dispatchLateness),
      dropped: this.dropped,
      inFlightCap: this.slots.capacity,
      waitedForConnection,
    };
  }

  figures(waitedForConnection: number): GeneratorFigures {
    return generatorFigures({
      snapshots: [this.monitor.snapshot()],
      sendLateness: this.monitor.sendLateness,
      dispatchLateness: this.monitor.dispatchLateness,
      dropped: this.dropped,
      inFlightCap: this.slots.capacity,
      waitedForConnection,
    });
  }
}
