import type { ShardMemorySpec } from './shard-specs.ts';

/** What a shard's memory follows: its open connections and the requests queued or in service on it. */
export interface ShardLoad {
  connections(shard: number): number;
  requests(shard: number): number;
}

/**
 * Per-shard host memory: a base, socket buffers per connection and per queued op. Going over what
 * the kernel can allocate (limit × (1 − fragmentation)) kills the shard; it stays dead until restarted.
 */
export class ShardMemory {
  /** Shards killed (OOM) and not yet restarted. */
  readonly dead: Uint8Array;
  deadCount = 0;
  /** False: no memory section, shards never die of OOM. */
  readonly modelled: boolean;
  private readonly oomPending: Uint8Array;
  /** An OOM-killed shard comes back after this; Infinity: only an operator restores it. */
  readonly restartDelayUs: number;

  constructor(
    /** Per shard slot (shard classes may differ); undefined: that shard's memory is not modelled. */
    private readonly memory: readonly (ShardMemorySpec | undefined)[],
    private readonly slots: number,
    private readonly load: ShardLoad,
    /** The cache's restartDelay (µs). */
    restartDelayUs: number,
  ) {
    this.dead = new Uint8Array(slots);
    this.oomPending = new Uint8Array(slots);
    this.modelled = memory.some((m) => m !== undefined);
    this.restartDelayUs = restartDelayUs;
  }

  /** True once when the shard goes over its limit: the caller schedules the kill (in its own event). */
  crossedLimit(shard: number): boolean {
    const m = this.memory[shard];
    if (m === undefined || this.oomPending[shard] === 1) return false;
    if (this.usedMb(shard) <= m.limit * (1 - m.fragmentation)) return false;
    this.oomPending[shard] = 1;
    return true;
  }

  /** Memory of the worst live shard now, as a share of what it can allocate. */
  pressure(): number {
    let worst = 0;
    for (let sh = 0; sh < this.slots; sh++) {
      const m = this.memory[sh];
      if (m !== undefined && this.dead[sh] !== 1) worst = Math.max(worst, this.usedMb(sh) / (m.limit * (1 - m.fragmentation)));
    }
    return worst;
  }

  /** The kill happens: false when the shard was dead already. */
  kill(shard: number): boolean {
    this.oomPending[shard] = 0;
    if (this.dead[shard] === 1) return false;
    this.dead[shard] = 1;
    this.deadCount++;
    return true;
  }

  /** The shard is back (empty): false when it was not dead. */
  revive(shard: number): boolean {
    if (this.dead[shard] !== 1) return false;
    this.dead[shard] = 0;
    this.deadCount--;
    return true;
  }

  /** MB in use on a shard's host: base + socket buffers of its connections and of its queued work. */
  private usedMb(shard: number): number {
    const m = this.memory[shard]!;
    return m.base + m.perConnection * this.load.connections(shard) + m.perQueuedOp * this.load.requests(shard);
  }
}
