import type { Service } from '../../../profile/topology/index.ts';

type Memory = NonNullable<Service['memory']>;

export class ProcessStats {
  /** OOM kills (each followed by a restart after memory.restartDelay). */
  oomKills = 0;
  restarts = 0;
  /** Failed calls whose error line was written (blocking). */
  logWrites = 0;
  threadsHighWater = 0;
  memoryHighWaterMb = 0;
  gcShareHighWater = 0;
}

/**
 * The process side of a service: memory use, GC share and OS threads, derived from counts the
 * service keeps (requests in it, calls in flight, blocked log writers). Plain arithmetic, no events:
 * the service asks `overLimit()` after a change and schedules the OOM kill itself.
 */
export class ProcessState {
  readonly stats = new ProcessStats();
  /** Requests queued or in service. */
  requests = 0;
  /** Downstream calls in flight. */
  calls = 0;
  /** Log writers blocked in write(2) (writing or queued behind the file lock). */
  blockedWriters = 0;
  /** Virtual time at which the log file is free for the next write. */
  logFreeAtUs = 0;
  private logCounter = 0;
  /** Most threads and memory since the last gauge sample: peaks between two samples still show. */
  threadsPeak = 0;
  memoryPeakMb = 0;

  constructor(
    readonly baseThreads: number,
    private readonly memory: Memory | null,
    private readonly gcCost: number,
    readonly logWriteUs: number,
    private readonly logEvery: number,
  ) {}

  get threads(): number {
    return this.baseThreads + this.blockedWriters;
  }

  /** Live heap, MB: what the collector traces (threads' stacks are not in it). */
  liveMb(): number {
    const m = this.memory;
    return m === null ? 0 : m.base + m.perRequest * this.requests + m.perCall * this.calls;
  }

  usedMb(): number {
    const m = this.memory;
    return m === null ? 0 : this.liveMb() + m.perThread * this.threads;
  }

  overLimit(): boolean {
    const m = this.memory;
    if (m === null) return false;
    const used = this.usedMb();
    if (used > this.stats.memoryHighWaterMb) this.stats.memoryHighWaterMb = used;
    if (used > this.memoryPeakMb) this.memoryPeakMb = used;
    if (this.threads > this.stats.threadsHighWater) this.stats.threadsHighWater = this.threads;
    return used > m.limit;
  }

  /** Share of CPU spent collecting: cost × live / (limit − live), capped at 0.95. */
  gcShare(): number {
    if (this.gcCost === 0 || this.memory === null) return 0;
    const live = this.liveMb();
    const headroom = this.memory.limit - live;
    const share = headroom <= 0 ? 0.95 : Math.min(0.95, (this.gcCost * live) / headroom);
    if (share > this.stats.gcShareHighWater) this.stats.gcShareHighWater = share;
    return share;
  }

  /** True when this failure gets a log line (every `logEvery`-th failure; all when 1). */
  logsThisFailure(): boolean {
    if (this.logWriteUs <= 0) return false;
    return this.logCounter++ % this.logEvery === 0;
  }

  /** Queues one blocking write behind the file lock; returns when it completes. */
  startWrite(nowUs: number): number {
    this.blockedWriters++;
    if (this.threads > this.threadsPeak) this.threadsPeak = this.threads;
    this.stats.logWrites++;
    this.logFreeAtUs = Math.max(nowUs, this.logFreeAtUs) + this.logWriteUs;
    return this.logFreeAtUs;
  }

  /** The peaks since the previous sample (at least the values now), then restarts them from now. */
  takePeaks(): { threads: number; memoryMb: number } {
    const peaks = { threads: Math.max(this.threadsPeak, this.threads), memoryMb: Math.max(this.memoryPeakMb, this.usedMb()) };
    this.threadsPeak = this.threads;
    this.memoryPeakMb = this.usedMb();
    return peaks;
  }

  /** The process died: its heap, threads and log writers are gone. */
  reset(nowUs: number): void {
    this.requests = 0;
    this.calls = 0;
    this.blockedWriters = 0;
    this.logFreeAtUs = nowUs;
  }
}
