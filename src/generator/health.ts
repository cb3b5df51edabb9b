import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import type { GeneratorHealth } from '../driver/types.ts';
import { newHistogram, type Histogram } from '../recorder/histograms.ts';

/** Limits past which the generator, not the target, is taken to have shaped the run. */
export const SATURATION = {
  /** Event-loop lag p99 above this means timers and socket reads ran late. */
  lagP99Ms: 50,
  /** More than this fraction of one core means the sending thread had no slack. */
  cpu: 0.9,
  /** Pacer lateness p99 (time due → time handed to the transport) above this means the schedule slipped. */
  dispatchLatenessP99Us: 10_000,
} as const;

/**
 * monitorEventLoopDelay records the whole time between its timer's runs, resolution included, so
 * an idle loop reads ~10 ms; lag is that minus the resolution.
 */
const LAG_RESOLUTION_MS = 10;
function lagMs(ns: number): number {
  return Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS);
}

/**
 * Watches the sending process itself: event-loop lag, CPU, and how late requests left. One per
 * thread that sends (the main thread, or each worker). Per-interval figures feed the recorder's
 * gauges (`generator.lagMs`, `generator.cpu`); run-long figures become `GeneratorHealth`.
 */
export class GeneratorMonitor {
  /** Run-long lag: never reset. */
  private readonly runLag: IntervalHistogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  /** Lag since the last gauge sample: reset at every interval. */
  private readonly intervalLag: IntervalHistogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  /** Actual write − intended send, µs: includes waiting for a free connection slot. */
  readonly sendLateness: Histogram = newHistogram();
  /** Pacer wake-up − intended send, µs: only the generator's own slip (timer granularity, a busy loop). */
  readonly dispatchLateness: Histogram = newHistogram();
  private startCpu = process.cpuUsage();
  private startMs = performance.now();
  private lastCpu = process.cpuUsage();
  private lastSampleMs = performance.now();
  private stoppedCpuFraction: number | undefined;

  /** The run's clock starts: CPU and lag from here on (connecting is not the run). */
  start(): void {
    this.startCpu = this.lastCpu = process.cpuUsage();
    this.startMs = this.lastSampleMs = performance.now();
    this.runLag.enable();
    this.intervalLag.enable();
  }

  /** Gauges for the interval just closed; called once per interval (allocates one small object). */
  sampleGauges(into: Record<string, number>): void {
    const nowMs = performance.now();
    const cpu = process.cpuUsage(this.lastCpu);
    const wallMs = nowMs - this.lastSampleMs;
    into['generator.cpu'] = wallMs > 0 ? round3((cpu.user + cpu.system) / 1000 / wallMs) : 0;
    into['generator.lagMs'] = this.intervalLag.count > 0 ? round3(lagMs(this.intervalLag.mean)) : 0;
    into['generator.lagMaxMs'] = this.intervalLag.count > 0 ? round3(lagMs(this.intervalLag.max)) : 0;
    this.intervalLag.reset();
    this.lastCpu = process.cpuUsage();
    this.lastSampleMs = nowMs;
  }

  stop(): void {
    this.runLag.disable();
    this.intervalLag.disable();
    const cpu = process.cpuUsage(this.startCpu);
    const wallMs = performance.now() - this.startMs;
    this.stoppedCpuFraction = wallMs > 0 ? (cpu.user + cpu.system) / 1000 / wallMs : 0;
  }

  /** Raw figures for merging across workers. */
  snapshot(): GeneratorSnapshot {
    const lag = this.runLag;
    return {
      lagMeanMs: lag.count > 0 ? lagMs(lag.mean) : 0,
      lagP99Ms: lag.count > 0 ? lagMs(lag.percentile(99)) : 0,
      lagMaxMs: lag.count > 0 ? lagMs(lag.max) : 0,
      cpu: this.stoppedCpuFraction ?? 0,
    };
  }
}

export interface GeneratorSnapshot {
  lagMeanMs: number;
  lagP99Ms: number;
  lagMaxMs: number;
  cpu: number;
}

export interface HealthInputs {
  /** One per sending thread. */
  snapshots: GeneratorSnapshot[];
  sendLateness: Histogram;
  dispatchLateness: Histogram;
  dropped: number;
  inFlightCap: number;
  /** Extra reasons the driver knows about (e.g. requests waited for a connection slot). */
  reasons?: string[];
}

/** Folds the run's figures into `GeneratorHealth`, saying why when the generator was the limit. */
export function generatorHealth(inputs: HealthInputs): GeneratorHealth {
  const { snapshots, sendLateness, dispatchLateness } = inputs;
  const lag = {
    mean: round3(snapshots.reduce((a, s) => a + s.lagMeanMs, 0) / Math.max(1, snapshots.length)),
    p99: round3(Math.max(0, ...snapshots.map((s) => s.lagP99Ms))),
    max: round3(Math.max(0, ...snapshots.map((s) => s.lagMaxMs))),
  };
  const cpu = round3(Math.max(0, ...snapshots.map((s) => s.cpu)));
  const lateness = percentiles(sendLateness);
  const dispatch = percentiles(dispatchLateness);
  const reasons: string[] = [];
  if (lag.p99 > SATURATION.lagP99Ms) reasons.push(`event-loop lag p99 ${lag.p99}ms > ${SATURATION.lagP99Ms}ms`);
  if (cpu > SATURATION.cpu) reasons.push(`generator CPU ${Math.round(cpu * 100)}% of a core > ${SATURATION.cpu * 100}%`);
  const dispatchP99 = dispatch.p99;
  if (dispatchP99 > SATURATION.dispatchLatenessP99Us) {
    reasons.push(`schedule slipped: dispatch lateness p99 ${(dispatchP99 / 1000).toFixed(1)}ms > ${SATURATION.dispatchLatenessP99Us / 1000}ms`);
  }
  if (inputs.dropped > 0) reasons.push(`${inputs.dropped} requests dropped at the in-flight cap (${inputs.inFlightCap})`);
  reasons.push(...(inputs.reasons ?? []));
  return { eventLoopLagMs: lag, cpu, sendLatenessUs: lateness, dispatchLatenessUs: dispatch, saturated: reasons.length > 0, reasons };
}

function percentiles(h: Histogram): { mean: number; p50: number; p99: number; max: number } {
  if (h.totalCount === 0) return { mean: 0, p50: 0, p99: 0, max: 0 };
  return { mean: Math.round(h.mean), p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), max: h.maxValue };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
