import type { Cache } from '../../../profile/topology/index.ts';
import { classHas } from '../../../profile/topology/shard-classes.ts';

export type ShardMemorySpec = NonNullable<Cache['memory']>;

/** A cache's settings resolved per shard slot: its own, with its shard classes applied in order. */
export interface PerShard {
  /** NIC bytes/s. */
  nic: Float64Array;
  workers: Float64Array;
  /** Which service-time sampler: -1 the cache's own, else the index of the class that set it. */
  serviceTimeClass: Int32Array;
  connectionLimit: Float64Array;
  backlog: Float64Array;
  memory: (ShardMemorySpec | undefined)[];
  /** Standing loss probability (shard classes' packetLoss). */
  loss: Float64Array;
}

const NO_MEMORY = { base: 0, perConnection: 0, perQueuedOp: 0, fragmentation: 0, restartDelay: Number.POSITIVE_INFINITY };

export function perShard(spec: Cache, slots: number): PerShard {
  const shards: PerShard = {
    nic: new Float64Array(slots).fill(spec.nic),
    workers: new Float64Array(slots).fill(spec.workers),
    serviceTimeClass: new Int32Array(slots).fill(-1),
    connectionLimit: new Float64Array(slots).fill(spec.connectionLimit),
    backlog: new Float64Array(slots).fill(spec.backlog),
    memory: Array.from({ length: slots }, () => spec.memory),
    loss: new Float64Array(slots),
  };
  spec.shardClasses.forEach((c, index) => {
    for (let s = 0; s < slots; s++) {
      if (!classHas(c, s, spec.shards)) continue;
      if (c.nic !== undefined) shards.nic[s] = c.nic;
      if (c.workers !== undefined) shards.workers[s] = c.workers;
      if (c.serviceTime !== undefined) shards.serviceTimeClass[s] = index;
      if (c.connectionLimit !== undefined) shards.connectionLimit[s] = c.connectionLimit;
      if (c.backlog !== undefined) shards.backlog[s] = c.backlog;
      if (c.packetLoss !== undefined) shards.loss[s] = c.packetLoss;
      if (c.memory !== undefined) {
        const own = Object.fromEntries(Object.entries(c.memory).filter(([, v]) => v !== undefined));
        shards.memory[s] = { ...NO_MEMORY, ...shards.memory[s], ...own } as ShardMemorySpec;
      }
    }
  });
  return shards;
}
