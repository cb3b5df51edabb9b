import type { GaugeSource, Recorder } from '../../../src/recorder/types.ts';

/**
 * A recorder for model tests: counts per outcome and reason, an exact latency histogram at 1 µs
 * resolution (to read percentiles without HDR rounding), and the gauges of every 1 s interval.
 */
export class TestRecorder implements Recorder {
  readonly reasons: string[] = ['ok'];
  readonly failuresByReason = new Map<string, number>();
  /** Completion time of the first failure of each reason. */
  readonly firstFailureUs = new Map<string, number>();
  sentCount = 0;
  succeeded = 0;
  failed = 0;
  completions = 0;
  /** Latency (completed − intended) counts per µs; the last bucket collects everything above. */
  readonly latencyCounts: Uint32Array;
  readonly intervals: Readonly<Record<string, number>>[] = [];
  /** Latency sums per client, for per-caller assertions. */
  readonly perClient = new Map<number, { ok: number; failed: number }>();
  private gaugeSource: GaugeSource = () => ({});
  private intervalIndex = 0;
  private lastTimeUs = 0;

  constructor(
    private readonly intervalUs = 1_000_000,
    maxLatencyUs = 2_000_000,
  ) {
    this.latencyCounts = new Uint32Array(maxLatencyUs + 1);
  }

  reason(name: string): number {
    const i = this.reasons.indexOf(name);
    if (i >= 0) return i;
    this.reasons.push(name);
    return this.reasons.length - 1;
  }

  sent(_intendedAtUs: number, sentAtUs: number): void {
    this.checkTime(sentAtUs);
    this.sentCount++;
  }

  complete(intendedAtUs: number, sentAtUs: number, completedAtUs: number, client: number, _kind: number, reason: number): void {
    this.checkTime(completedAtUs);
    if (sentAtUs < intendedAtUs || completedAtUs < sentAtUs) throw new Error(`bad times ${intendedAtUs} ${sentAtUs} ${completedAtUs}`);
    this.completions++;
    const perClient = this.perClient.get(client) ?? { ok: 0, failed: 0 };
    this.perClient.set(client, perClient);
    if (reason === 0) {
      this.succeeded++;
      perClient.ok++;
    } else {
      this.failed++;
      perClient.failed++;
      const name = this.reasons[reason]!;
      this.failuresByReason.set(name, (this.failuresByReason.get(name) ?? 0) + 1);
      if (!this.firstFailureUs.has(name)) this.firstFailureUs.set(name, completedAtUs);
    }
    const latency = Math.min(completedAtUs - intendedAtUs, this.latencyCounts.length - 1);
    this.latencyCounts[latency]!++;
  }

  dropped(): void {
    throw new Error('the model never drops');
  }

  advanceTo(nowUs: number): void {
    this.checkTime(nowUs);
    while (nowUs >= (this.intervalIndex + 1) * this.intervalUs) {
      this.intervals.push(this.gaugeSource());
      this.intervalIndex++;
    }
  }

  setGaugeSource(source: GaugeSource): void {
    this.gaugeSource = source;
  }

  /** The smallest latency (µs) with at least p% of completions at or below it. */
  percentile(p: number): number {
    const rank = Math.max(1, Math.ceil((p / 100) * this.completions));
    let seen = 0;
    for (let us = 0; us < this.latencyCounts.length; us++) {
      seen += this.latencyCounts[us]!;
      if (seen >= rank) return us;
    }
    return this.latencyCounts.length - 1;
  }

  failures(reason: string): number {
    return this.failuresByReason.get(reason) ?? 0;
  }

  /** Virtual time as the recorder sees it must never go back. */
  private checkTime(t: number): void {
    if (t < this.lastTimeUs) throw new Error(`recorder time went back from ${this.lastTimeUs} to ${t}`);
    this.lastTimeUs = t;
  }
}
