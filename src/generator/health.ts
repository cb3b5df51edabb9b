import { cpuUsage } from 'node:process';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import type { GeneratorFigures } from '../recorder/driver-report.ts';
import { defineGauge, gaugeKey } from '../recorder/gauges.ts';
import { newHistogram, type Histogram } from '../recorder/histograms.ts';
import { roundTo } from '../profile/units.ts';

/**
 * monitorEventLoopDelay records the whole time between its timer's runs, resolution included, so
 * an idle loop reads ~10 ms; lag is that minus the resolution.
 */
const LAG_RESOLUTION_MS = 10;
function lagMs(ns: number): number {
  return Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS);
}

/** The generator's per-interval gauges: what the analysis reads when it asks whether the generator was the limit. */
export const GENERATOR_GAUGES = {
  cpu: defineGauge('generatorCpu', 'cores', 'generator', 'CPU of the sending thread over the interval, in cores'),
  lagMs: defineGauge('generatorLagMs', 'ms', 'generator', 'mean event-loop lag of the sending thread over the interval'),
  lagMaxMs: defineGauge('generatorLagMaxMs', 'ms', 'generator', 'worst event-loop lag of the sending thread over the interval'),
} as const;

/** How a monitor reads its process: CPU time of every thread (user + system, µs) and monotonic ms. */
export interface ProcessReadings {
  cpuUs(): number;
  nowMs(): number;
}

const processReadings: ProcessReadings = {
  cpuUs: () => {
    const usage = cpuUsage();
    return usage.user + usage.system;
  },
  nowMs: () => performance.now(),
};

/**
 * Watches the sending process itself: event-loop lag, CPU, and how late requests left. One per
 * thread that sends (the main thread, or each worker). Per-interval figures feed the recorder's
 * gauges (GENERATOR_GAUGES); run-long figures become `GeneratorFigures`.
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
  private startCpuUs: number;
  private startMs: number;
  private lastCpuUs: number;
  private lastSampleMs: number;
  /**
   * The readings when the measured window ended (stop): an interval closed after it (the run's
   * last, flushed once the drain, the report and the files are written) ends there too. Process-wide
   * CPU keeps counting the threads that write files, and read past the end it showed over one core.
   */
  private end: { cpuUs: number; ms: number } | undefined;
  private stoppedCpuFraction: number | undefined;
  /** Intervals closing after this (ms, performance.now()) are measured ones: the warm-up is over. */
  private measuredFromMs = 0;
  /**
   * The busiest measured interval's CPU. The run-long mean hides a saturated stretch: a run whose
   * every measured second but a few was at 1.0 core averaged 0.898 over warm-up, ramp and drain.
   */
  private peakCpuFraction: number | undefined;

  /** `readings`: the real process by default; tests pass their own. */
  constructor(private readonly readings: ProcessReadings = processReadings) {
    this.startCpuUs = this.lastCpuUs = readings.cpuUs();
    this.startMs = this.lastSampleMs = readings.nowMs();
  }

  /**
   * The run's clock starts: CPU and lag from here on (connecting is not the run); intervals that
   * end after `warmupUs` are measured.
   */
  start(warmupUs = 0): void {
    this.startCpuUs = this.lastCpuUs = this.readings.cpuUs();
    this.startMs = this.lastSampleMs = this.readings.nowMs();
    this.end = undefined;
    this.measuredFromMs = this.startMs + warmupUs / 1000;
    this.peakCpuFraction = undefined;
    this.runLag.enable();
    this.intervalLag.enable();
  }

  /** Gauges for the interval just closed; called once per interval (allocates one small object). */
  sampleGauges(into: Record<string, number>): void {
    const nowMs = this.end?.ms ?? this.readings.nowMs();
    const cpuUs = this.end?.cpuUs ?? this.readings.cpuUs();
    const wallMs = nowMs - this.lastSampleMs;
    const fraction = wallMs > 0 ? (cpuUs - this.lastCpuUs) / 1000 / wallMs : 0;
    into[gaugeKey(GENERATOR_GAUGES.cpu)] = roundTo(fraction, 3);
    // An interval straddling the warm-up's end (timer slip) is half measured: it counts.
    if (nowMs > this.measuredFromMs + wallMs / 2) this.peakCpuFraction = Math.max(this.peakCpuFraction ?? 0, fraction);
    into[gaugeKey(GENERATOR_GAUGES.lagMs)] = this.intervalLag.count > 0 ? roundTo(lagMs(this.intervalLag.mean), 3) : 0;
    into[gaugeKey(GENERATOR_GAUGES.lagMaxMs)] = this.intervalLag.count > 0 ? roundTo(lagMs(this.intervalLag.max), 3) : 0;
    this.intervalLag.reset();
    this.lastCpuUs = cpuUs;
    this.lastSampleMs = nowMs;
  }

  /** The measured window ends: the run-long figures, and any interval closed from now on, stop here. */
  stop(): void {
    this.runLag.disable();
    this.intervalLag.disable();
    const end = { cpuUs: this.readings.cpuUs(), ms: this.readings.nowMs() };
    this.end = end;
    const wallMs = end.ms - this.startMs;
    this.stoppedCpuFraction = wallMs > 0 ? (end.cpuUs - this.startCpuUs) / 1000 / wallMs : 0;
  }

  /** Raw figures for merging across workers. */
  snapshot(): GeneratorSnapshot {
    const lag = this.runLag;
    return {
      lagMeanMs: lag.count > 0 ? lagMs(lag.mean) : 0,
      lagP99Ms: lag.count > 0 ? lagMs(lag.percentile(99)) : 0,
      lagMaxMs: lag.count > 0 ? lagMs(lag.max) : 0,
      cpu: this.stoppedCpuFraction ?? 0,
      cpuPeak: this.peakCpuFraction ?? this.stoppedCpuFraction ?? 0,
    };
  }
}

export interface GeneratorSnapshot {
  lagMeanMs: number;
  lagP99Ms: number;
  lagMaxMs: number;
  cpu: number;
  /** The busiest measured interval's CPU (the run-long figure when no measured interval closed). */
  cpuPeak: number;
}

export interface FigureInputs {
  /** One per sending thread. */
  snapshots: GeneratorSnapshot[];
  sendLateness: Histogram;
  dispatchLateness: Histogram;
  dropped: number;
  inFlightCap: number;
  waitedForConnection: number;
}

/** Folds the threads' figures into one `GeneratorFigures`: raw, for the analysis to judge. */
export function generatorFigures(inputs: FigureInputs): GeneratorFigures {
  const { snapshots } = inputs;
  let lagSum = 0;
  let lagP99 = 0;
  let lagMax = 0;
  let cpu = 0;
  let cpuPeak = 0;
  for (const s of snapshots) {
    lagSum += s.lagMeanMs;
    lagP99 = Math.max(lagP99, s.lagP99Ms);
    lagMax = Math.max(lagMax, s.lagMaxMs);
    cpu = Math.max(cpu, s.cpu);
    cpuPeak = Math.max(cpuPeak, s.cpuPeak);
  }
  return {
    eventLoopLagMs: { mean: roundTo(lagSum / Math.max(1, snapshots.length), 3), p99: roundTo(lagP99, 3), max: roundTo(lagMax, 3) },
    cpu: roundTo(cpu, 3),
    cpuPeak: roundTo(cpuPeak, 3),
    sendLatenessUs: percentiles(inputs.sendLateness),
    dispatchLatenessUs: percentiles(inputs.dispatchLateness),
    dropped: inputs.dropped,
    inFlightCap: inputs.inFlightCap,
    waitedForConnection: inputs.waitedForConnection,
    threads: snapshots.length,
  };
}

function percentiles(h: Histogram): { mean: number; p50: number; p99: number; max: number } {
  if (h.totalCount === 0) return { mean: 0, p50: 0, p99: 0, max: 0 };
  return { mean: Math.round(h.mean), p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), max: h.maxValue };
}
