import { encodeIntoCompressedBase64, newHistogram, summarize, type Histogram, type LatencySummary } from './histograms.ts';

/** Counts and a latency histogram for one slice of the traffic (a kind, a client, an outcome). */
export class Breakdown {
  ok = 0;
  failed = 0;
  readonly latency: Histogram = newHistogram();

  record(latencyUs: number, failed: boolean): void {
    if (failed) this.failed++;
    else this.ok++;
    this.latency.recordValue(latencyUs);
  }

  /** Sets this to the sum of `parts` (HDR histograms add bucket by bucket, exactly). */
  sumOf(...parts: Breakdown[]): this {
    this.ok = this.failed = 0;
    this.latency.reset();
    for (const part of parts) {
      this.ok += part.ok;
      this.failed += part.failed;
      this.latency.add(part.latency);
    }
    return this;
  }

  toJSON(): BreakdownResult {
    return { requests: this.ok + this.failed, ok: this.ok, failed: this.failed, latencyUs: summarize(this.latency), histogram: encodeIntoCompressedBase64(this.latency) };
  }
}

export interface BreakdownResult {
  requests: number;
  ok: number;
  failed: number;
  latencyUs: LatencySummary;
  /** The slice's latency histogram, compressed base64 (HdrHistogram's own encoding). */
  histogram: string;
}
