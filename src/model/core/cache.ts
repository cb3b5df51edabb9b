import type { EventHandler } from '../engine/simulation.ts';
import { IntDeque } from '../engine/int-deque.ts';
import { hashKey } from '../hash/index.ts';
import type { Sampler } from '../../schedule/sample.ts';
import type { Keyspace } from '../../schedule/types.ts';
import type { Cache } from '../topology.ts';
import type { ModelContext, ModelNode } from './context.ts';
import { ShardedLru } from './lru.ts';
import { QUEUE_FULL } from './reasons.ts';
import { STAGE_FILL, TASK_QUEUED, TASK_REJECTED, TASK_RUNNING, type Call, type Task } from './records.ts';

const EV_OP_DONE = 1;
const EV_REJECT = 2;
const UNKNOWN_SHARD = 0xffffffff;

export class CacheStats {
  gets = 0;
  hits = 0;
  sets = 0;
  rejected = 0;
}

/**
 * A sharded cache (memcached-like): per shard `workers` threads, a queue and an LRU key set. A get
 * is a hit when the key is present at the end of its service time; a set inserts it. Shards are
 * found by hashing the key's wire name once per key id (cached), with modulo placement.
 */
export class CacheNode implements ModelNode, EventHandler {
  readonly stats = new CacheStats();
  readonly busy: Int32Array;
  readonly queues: IntDeque[];
  readonly lru: ShardedLru;
  private readonly shardOfKey: Uint32Array;
  private readonly handlerId: number;
  private readonly queueLimit: number;
  private readonly workers: number;
  private readonly lifo: boolean;

  constructor(
    private readonly ctx: ModelContext,
    readonly name: string,
    private readonly spec: Cache,
    /** Global index of shard 0; shard s is node nodeBase + s. */
    readonly nodeBase: number,
    private readonly keyspace: Keyspace,
    private readonly serviceTime: Sampler,
  ) {
    const keyTotal = keyspace.count + keyspace.hotKeys.length;
    this.busy = new Int32Array(spec.shards);
    this.queues = Array.from({ length: spec.shards }, () => new IntDeque(16));
    this.lru = new ShardedLru(keyTotal, spec.shards, spec.capacity);
    this.shardOfKey = new Uint32Array(keyTotal).fill(UNKNOWN_SHARD);
    this.handlerId = ctx.sim.register(this);
    this.queueLimit = spec.queue.limit;
    this.workers = spec.workers;
    this.lifo = spec.queue.discipline === 'lifo';
    if (spec.warm) this.warm();
  }

  get shards(): number {
    return this.spec.shards;
  }

  shardOf(key: number): number {
    let shard = this.shardOfKey[key]!;
    if (shard === UNKNOWN_SHARD) {
      shard = this.spec.shards === 1 ? 0 : hashKey(this.spec.hash, this.keyspace.keyName(key)) % this.spec.shards;
      this.shardOfKey[key] = shard;
    }
    return shard;
  }

  nodeOfKey(key: number): number {
    return this.nodeBase + this.shardOf(key);
  }

  accept(call: Call, node: number): void {
    const task = this.ctx.tasks.alloc();
    const shard = node - this.nodeBase;
    task.originCall = call.id;
    task.originGen = call.gen;
    task.key = call.key;
    task.shard = shard;
    task.isSet = call.stage === STAGE_FILL;
    task.reason = 0;
    if (this.busy[shard]! < this.workers) return this.start(task);
    const queue = this.queues[shard]!;
    if (queue.size < this.queueLimit) {
      task.state = TASK_QUEUED;
      queue.pushBack(task.id);
      return;
    }
    this.stats.rejected++;
    task.state = TASK_REJECTED;
    task.reason = QUEUE_FULL;
    this.ctx.sim.after(0, this.handlerId, EV_REJECT, task.id);
  }

  handle(code: number, taskId: number): void {
    const task = this.ctx.tasks.items[taskId]!;
    if (code === EV_REJECT) {
      this.ctx.flow.reply(task.originCall, task.originGen, task.reason, false);
      this.ctx.freeTask(task);
      return;
    }
    const shard = task.shard;
    let hit = false;
    if (task.isSet) {
      this.stats.sets++;
      this.lru.insert(task.key, shard);
    } else {
      this.stats.gets++;
      hit = this.lru.touch(task.key, shard);
      if (hit) this.stats.hits++;
    }
    this.busy[shard]!--;
    const queue = this.queues[shard]!;
    if (queue.size > 0) this.start(this.ctx.tasks.items[this.lifo ? queue.popBack() : queue.popFront()]!);
    this.ctx.flow.reply(task.originCall, task.originGen, 0, hit);
    this.ctx.freeTask(task);
  }

  private start(task: Task): void {
    task.state = TASK_RUNNING;
    this.busy[task.shard]!++;
    this.ctx.sim.after(this.serviceTime(), this.handlerId, EV_OP_DONE, task.id);
  }

  /**
   * Fills every shard with its most popular keys (ids are popularity ranks), most popular most
   * recently used, so the first evictions take the least popular. Named hot keys start cold.
   */
  private warm(): void {
    const shards = this.spec.shards;
    const capacity = this.spec.capacity;
    const filled = new Float64Array(shards);
    const chosen: number[] = [];
    let full = 0;
    for (let key = 0; key < this.keyspace.count && full < shards; key++) {
      const shard = this.shardOf(key);
      if (filled[shard]! >= capacity) continue;
      chosen.push(key);
      if (++filled[shard]! >= capacity) full++;
    }
    for (let i = chosen.length - 1; i >= 0; i--) this.lru.insert(chosen[i]!, this.shardOf(chosen[i]!));
  }
}
