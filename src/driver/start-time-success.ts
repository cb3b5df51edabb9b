/** Most buckets kept; past it neighbours merge pairwise (as the interval digest's chart series does). */
const MAX_BUCKETS = 512;

/** User requests by the interval of their intended send time, and how many of those succeeded. */
export interface SuccessByStart {
  /** Each bucket covers this long from the run start (the interval, or a power of two of them). */
  bucketMs: number;
  started: number[];
  ok: number[];
}

/**
 * Success counted by when requests were meant to start, not by when they ended — what `sweep
 * --window` judges by. By completion time, a burst of timeouts lands a timeout after the requests
 * that caused it and a recovery looks later than it was; by start time each request counts where
 * the load that caused its fate was. Memory stays bounded however long the run.
 */
export class StartTimeSuccess {
  private bucketUs: number;
  private readonly started: number[] = [];
  private readonly ok: number[] = [];

  constructor(intervalUs: number) {
    this.bucketUs = intervalUs;
  }

  add(intendedAtUs: number, succeeded: boolean): void {
    let b = Math.floor(intendedAtUs / this.bucketUs);
    while (b >= MAX_BUCKETS) {
      this.halve();
      b = Math.floor(intendedAtUs / this.bucketUs);
    }
    while (this.started.length <= b) {
      this.started.push(0);
      this.ok.push(0);
    }
    this.started[b]!++;
    if (succeeded) this.ok[b]!++;
  }

  result(): SuccessByStart {
    return { bucketMs: this.bucketUs / 1000, started: [...this.started], ok: [...this.ok] };
  }

  private halve(): void {
    for (const counts of [this.started, this.ok]) {
      const merged = [];
      for (let i = 0; i < counts.length; i += 2) merged.push(counts[i]! + (counts[i + 1] ?? 0));
      counts.splice(0, counts.length, ...merged);
    }
    this.bucketUs *= 2;
  }
}
