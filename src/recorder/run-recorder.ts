import type { Plan } from '../schedule/types.ts';
import { Breakdown } from './breakdown.ts';
import { newHistogram, type Histogram } from './histograms.ts';
import { IntervalDigest, type IntervalResult } from './interval-digest.ts';
import { IntervalHistograms } from './interval-histograms.ts';
import { logHeader, logInterval } from './latency-log.ts';
import type { GaugeSource, Recorder } from './types.ts';

export type { IntervalResult } from './interval-digest.ts';

export interface RecorderOptions {
  intervalUs?: number;
  /** Receives the HdrHistogram interval log as it is written (one chunk per line). */
  hlog?: (chunk: string) => void;
  /** Epoch ms written as the log's StartTime. */
  startTimeMs?: number;
  /**
   * Receives every closed interval, the histogram of all its completions and its tagged histograms
   * (measured, per kind, warm-up), in order (the run folder's intervals.jsonl; a worker's message to
   * the main thread). The histograms are reset after the call.
   */
  onInterval?: (interval: IntervalResult, latency: Histogram, histograms: IntervalHistograms) => void;
}

const NO_GAUGES: GaugeSource = () => ({});

/**
 * Records every request into fixed-size HDR histograms — overall, per kind, per client, per outcome —
 * and one interval histogram that is written to the interval log and reset each interval. Closed
 * intervals go to the `onInterval` sink and into a bounded digest, never into a growing list, so
 * memory does not grow with the run's length. Requests due during the warm-up appear in the
 * intervals but not in the totals.
 */
export class RunRecorder implements Recorder {
  readonly intervalUs: number;
  readonly reasons: string[] = ['ok'];
  /** Failures by reason code (index 0 unused). */
  readonly errorCounts: number[] = [0];
  readonly serviceTime: Histogram = newHistogram();
  readonly ok = new Breakdown();
  readonly failed = new Breakdown();
  readonly byKind: Breakdown[];
  readonly byClient: Breakdown[];
  /** What the result keeps of the intervals: gauge statistics and a chart series of bounded size. */
  readonly digest: IntervalDigest;
  /** Every measured request: `ok` and `failed` added up when read (each request is recorded once, in one of them). */
  get all(): Breakdown {
    return this.allSum.sumOf(this.ok, this.failed);
  }
  private readonly allSum = new Breakdown();
  sentCount = 0;
  /** Measured requests that failed before reaching the wire (in `failed`, never in `sentCount`). */
  notSentCount = 0;
  droppedCount = 0;
  warmupSent = 0;
  /** Completion time of the last recorded request, µs. */
  lastCompletionUs = 0;

  private readonly onInterval: RecorderOptions['onInterval'];

  private gaugeSource = NO_GAUGES;
  private readonly droppedReason: number;
  private readonly intervalHistograms: IntervalHistograms;
  private readonly log: ((chunk: string) => void) | undefined;
  private intervalIndex = 0;
  private intervalSent = 0;
  private intervalOk = 0;
  private intervalFailed = 0;
  private intervalDropped = 0;
  /** The interval's failures by reason code (index 0 unused): bounded by the reasons registered. */
  private readonly intervalErrors: number[] = [0];
  private lastEventUs = 0;

  constructor(
    readonly plan: Plan,
    options: RecorderOptions = {},
  ) {
    this.intervalUs = options.intervalUs ?? 1_000_000;
    this.digest = new IntervalDigest(this.intervalUs);
    this.onInterval = options.onInterval;
    this.byKind = plan.kinds.map(() => new Breakdown());
    this.byClient = plan.clients.map(() => new Breakdown());
    this.droppedReason = this.reason('dropped');
    this.intervalHistograms = new IntervalHistograms(plan.kinds.length);
    this.log = options.hlog;
    this.log?.(logHeader({ startTimeMs: options.startTimeMs ?? 0, intervalUs: this.intervalUs, warmupUs: plan.warmupUs, kinds: plan.kinds }));
  }

  reason(name: string): number {
    const existing = this.reasons.indexOf(name);
    if (existing > 0) return existing;
    this.reasons.push(name);
    this.errorCounts.push(0);
    this.intervalErrors.push(0);
    return this.reasons.length - 1;
  }

  setGaugeSource(source: GaugeSource): void {
    this.gaugeSource = source;
  }

  sent(intendedAtUs: number, sentAtUs: number, _client: number): void {
    this.advanceTo(sentAtUs);
    this.intervalSent++;
    if (intendedAtUs < this.plan.warmupUs) this.warmupSent++;
    else this.sentCount++;
  }

  complete(intendedAtUs: number, sentAtUs: number, completedAtUs: number, client: number, kind: number, reason: number): void {
    this.advanceTo(completedAtUs);
    const wired = sentAtUs >= 0;
    const latencyUs = Math.max(0, completedAtUs - intendedAtUs);
    const failed = reason !== 0;
    if (failed) {
      this.intervalFailed++;
      this.intervalErrors[reason]!++;
    } else this.intervalOk++;
    if (completedAtUs > this.lastCompletionUs) this.lastCompletionUs = completedAtUs;
    // A request is measured by when it was due, as its drop or its send is: one due in the warm-up
    // but sent late, after it, is still the warm-up's (else a slow start inflates the measured count).
    const measured = intendedAtUs >= this.plan.warmupUs;
    this.intervalHistograms.record(latencyUs, kind, measured);
    // The warm-up's requests are in its intervals only. The branch is compiled before the clock
    // starts, by the driver's priming run (driver/prime.ts), not first taken when the warm-up ends.
    if (!measured) return;
    (failed ? this.failed : this.ok).record(latencyUs, failed);
    this.byKind[kind]!.record(latencyUs, failed);
    this.byClient[client]!.record(latencyUs, failed);
    if (wired) this.serviceTime.recordValue(Math.max(0, completedAtUs - sentAtUs));
    else this.notSentCount++;
    if (failed) this.errorCounts[reason]!++;
  }

  dropped(intendedAtUs: number, client: number, kind: number): void {
    this.advanceTo(intendedAtUs);
    this.intervalDropped++;
    this.intervalErrors[this.droppedReason]!++;
    if (intendedAtUs < this.plan.warmupUs) return;
    this.droppedCount++;
    this.errorCounts[this.droppedReason]!++;
    this.byKind[kind]!.failed++;
    this.byClient[client]!.failed++;
  }

  advanceTo(nowUs: number): void {
    if (nowUs > this.lastEventUs) this.lastEventUs = nowUs;
    while (nowUs >= (this.intervalIndex + 1) * this.intervalUs) this.closeInterval();
  }

  /** Closes the interval in progress (at the end of a run, however short it is). */
  flush(): void {
    if (this.intervalSent + this.intervalOk + this.intervalFailed + this.intervalDropped > 0) this.closeInterval(this.lastEventUs);
  }

  /**
   * Appends an interval built elsewhere (merged from workers' recorders): the next interval in
   * order, written to the interval log like one this recorder closed itself.
   */
  appendMergedInterval(interval: IntervalResult, histograms: IntervalHistograms): void {
    this.publish(interval, histograms.all(), histograms);
    this.intervalIndex++;
  }

  /** `endUs`: when the run ended inside this interval (flush); the interval's own end otherwise. */
  private closeInterval(endUs?: number): void {
    const startUs = this.intervalIndex * this.intervalUs;
    this.intervalHistograms.sealRecorded();
    const h = this.intervalHistograms.all();
    const completed = h.totalCount;
    const coveredUs = endUs === undefined ? this.intervalUs : Math.min(this.intervalUs, Math.max(1000, endUs - startUs));
    const interval: IntervalResult = {
      tMs: startUs / 1000,
      warmup: startUs < this.plan.warmupUs,
      sent: this.intervalSent,
      ok: this.intervalOk,
      failed: this.intervalFailed,
      dropped: this.intervalDropped,
      goodputRps: (this.intervalOk * 1e6) / this.intervalUs,
      latencyUs: completed === 0 ? { p50: 0, p99: 0, max: 0 } : { p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), max: h.maxValue },
      gauges: this.gaugeSource(),
      ...this.intervalErrorCounts(),
      ...(coveredUs < this.intervalUs && { coveredMs: coveredUs / 1000 }),
    };
    this.publish(interval, h, this.intervalHistograms);
    this.intervalHistograms.reset();
    this.intervalIndex++;
    this.intervalSent = this.intervalOk = this.intervalFailed = this.intervalDropped = 0;
    this.intervalErrors.fill(0);
  }

  /** `{ errors }` with the interval's non-zero counts by reason name, or nothing when none failed. */
  private intervalErrorCounts(): { errors?: Record<string, number> } {
    if (this.intervalFailed + this.intervalDropped === 0) return {};
    const errors: Record<string, number> = {};
    this.intervalErrors.forEach((n, code) => {
      if (n > 0) errors[this.reasons[code]!] = n;
    });
    return { errors };
  }

  private publish(interval: IntervalResult, latency: Histogram, histograms: IntervalHistograms): void {
    this.digest.add(interval);
    this.log?.(logInterval(interval.tMs / 1000, this.intervalUs / 1e6, histograms, this.plan.kinds));
    this.onInterval?.(interval, latency, histograms);
  }
}
