/**
 * A CFS CPU quota per shard: `quotaUs` µs of service per `periodUs`. Work that does not fit waits
 * for the next period(s).
 */
export class CpuQuota {
  private readonly used: Float64Array;
  private readonly period: Float64Array;

  constructor(
    private readonly quotaUs: number,
    private readonly periodUs: number,
    slots: number,
    /** Where ops that had to wait for the next period are counted. */
    private readonly counts: { throttled: number },
  ) {
    this.used = new Float64Array(slots);
    this.period = new Float64Array(slots);
  }

  /** The delay from now until an op of `us` µs on `shard` is done, including any wait for quota. */
  delayUs(shard: number, us: number, now: number): number {
    const period = this.periodUs;
    let start = now;
    let periodIndex = Math.floor(now / period);
    if (periodIndex > this.period[shard]!) {
      this.period[shard] = periodIndex;
      this.used[shard] = 0;
    }
    // Booked work may already run into later periods: continue from the shard's booking.
    periodIndex = this.period[shard]!;
    if (this.used[shard]! + us > this.quotaUs) {
      this.counts.throttled++;
      periodIndex++;
      this.period[shard] = periodIndex;
      this.used[shard] = 0;
      start = Math.max(now, periodIndex * period);
    }
    this.used[shard]! += us;
    return start - now + us;
  }
}
