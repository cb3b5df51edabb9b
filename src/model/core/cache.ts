import type { EventHandler } from '../engine/simulation.ts';
import { IntDeque } from '../engine/int-deque.ts';
import { hashKey } from '../hash/index.ts';
import type { Sampler } from '../../schedule/sample.ts';
import type { Keyspace } from '../../schedule/types.ts';
import type { Rng } from '../../schedule/rng.ts';
import type { Cache } from '../topology.ts';
import type { ClientGroupModel } from './client-group.ts';
import type { ModelContext, ModelNode } from './context.ts';
import { ShardedLru } from './lru.ts';
import { CONNECTION_REFUSED, CONNECTION_RESET, QUEUE_FULL } from './reasons.ts';
import { KetamaRing } from './ring.ts';
import { STAGE_FILL, TASK_QUEUED, TASK_REJECTED, TASK_RUNNING, type Call, type Task } from './records.ts';

const EV_OP_DONE = 1;
const EV_REJECT = 2;
const EV_SENT = 3;
const EV_OOM = 4;
const EV_RESTART = 5;
const UNKNOWN_SHARD = 0xffffffff;

export class CacheStats {
  gets = 0;
  hits = 0;
  sets = 0;
  rejected = 0;
  /** Bytes put on the wire by every shard's NIC. */
  bytesSent = 0;
  /** Membership changes (shards added or removed). */
  membershipChanges = 0;
  /** Shards OOM-killed, and restarted (empty). */
  oomKills = 0;
  restarts = 0;
  /** Requests refused by a dead shard, or lost in its queue when it died. */
  refused = 0;
  /** Requests lost to packet loss (the client times out). */
  lost = 0;
  /** Ops that had to wait for the next CPU-quota period. */
  throttled = 0;
  /** Hits on a copy older than the key's newest version (copies: true). */
  staleReads = 0;
}

/**
 * A sharded cache (memcached-like): per shard `workers` threads, a queue, an LRU key set and a NIC
 * that sends replies FIFO at its bandwidth. A get is a hit when the key is present at the end of
 * its service time; a set inserts it. A key's shard comes from its hash (cached per key) through
 * modulo or a ketama ring over the shards currently in the cluster; a membership change (timeline)
 * re-places keys, and moved keys miss until filled on their new shard.
 */
export class CacheNode implements ModelNode, EventHandler {
  readonly stats = new CacheStats();
  readonly busy: Int32Array;
  readonly queues: IntDeque[];
  readonly lru: ShardedLru;
  /** Virtual time at which each shard's NIC has sent everything queued. */
  readonly nicFreeAtUs: Float64Array;
  /** Shards in the ring (members), and the list of them in slot order. */
  active: number;
  private readonly members: Int32Array;
  private readonly inRing: Uint8Array;
  /** Next never-used slot (timeline additions take slots in order). */
  private nextSpare: number;
  /** Shards killed (OOM) and not yet restarted. */
  readonly dead: Uint8Array;
  deadCount = 0;
  private readonly oomPending: Uint8Array;
  /** Service-time multiplier (a capacity dip). */
  slowdown = 1;
  /** Injected latency added to every op (timeline `latency`). */
  extraLatencyUs = 0;
  private readonly shardOfKey: Uint32Array;
  private readonly keyHash: Uint32Array;
  private readonly hashKnown: Uint8Array;
  private readonly valueBytes: Uint32Array;
  private readonly ring: KetamaRing | null;
  private readonly handlerId: number;
  private readonly queueLimit: number;
  private readonly workers: number;
  private readonly lifo: boolean;
  private readonly nicBytesPerUs: number;
  private readonly connectionOverhead: number;
  /** CPU quota: µs of service per period per shard, the period, and each shard's booking. */
  private readonly quotaUs: number;
  private readonly quotaPeriodUs: number;
  private readonly quotaUsed: Float64Array;
  private readonly quotaPeriod: Float64Array;

  constructor(
    private readonly ctx: ModelContext,
    readonly name: string,
    private readonly spec: Cache,
    /** Global index of shard 0; shard s is node nodeBase + s. */
    readonly nodeBase: number,
    /** Shard slots: the initial shards plus every shard the timeline may add. */
    readonly slots: number,
    private readonly keyspace: Keyspace,
    private readonly serviceTime: Sampler,
    private readonly valueSize: Sampler,
    private readonly hotValueSize: Sampler,
    private readonly lossRng: Rng,
  ) {
    const keyTotal = keyspace.count + keyspace.hotKeys.length;
    this.active = spec.shards;
    this.members = new Int32Array(slots);
    this.inRing = new Uint8Array(slots);
    for (let sh = 0; sh < spec.shards; sh++) this.inRing[sh] = 1;
    this.nextSpare = spec.shards;
    this.dead = new Uint8Array(slots);
    this.oomPending = new Uint8Array(slots);
    this.busy = new Int32Array(slots);
    this.queues = Array.from({ length: slots }, () => new IntDeque(16));
    this.lru = new ShardedLru(keyTotal, slots, spec.capacity, spec.copies);
    this.nicFreeAtUs = new Float64Array(slots);
    this.shardOfKey = new Uint32Array(keyTotal).fill(UNKNOWN_SHARD);
    this.keyHash = new Uint32Array(keyTotal);
    this.hashKnown = new Uint8Array(keyTotal);
    this.valueBytes = new Uint32Array(Number.isFinite(spec.nic) ? keyTotal : 0);
    this.ring = spec.placement === 'ketama' ? new KetamaRing((s) => `${name}-${s}:11211`) : null;
    this.rebuildMembership();
    this.handlerId = ctx.sim.register(this);
    this.queueLimit = spec.queue.limit;
    this.workers = spec.workers;
    this.lifo = spec.queue.discipline === 'lifo';
    this.nicBytesPerUs = spec.nic / 1e6;
    this.connectionOverhead = spec.connectionOverhead;
    this.quotaPeriodUs = spec.cpuQuota?.period ?? 0;
    this.quotaUs = spec.cpuQuota ? spec.cpuQuota.cores * spec.cpuQuota.period : 0;
    this.quotaUsed = new Float64Array(slots);
    this.quotaPeriod = new Float64Array(slots);
    if (spec.warm) this.warm();
  }

  /** Shards in the cluster now. */
  get shards(): number {
    return this.active;
  }

  shardOf(key: number): number {
    let shard = this.shardOfKey[key]!;
    if (shard === UNKNOWN_SHARD) {
      shard = this.place(this.hashOf(key));
      this.shardOfKey[key] = shard;
    }
    return shard;
  }

  nodeOfKey(key: number): number {
    return this.nodeBase + this.shardOf(key);
  }

  /**
   * The key's node in one client instance's view that excludes the nodes it marked dead: the next
   * live server on the ketama ring (modulo placement has no "next": hash mod live servers). -1 when
   * that instance holds every node for dead.
   */
  nodeOfKeyAvoiding(key: number, group: ClientGroupModel, instance: number): number {
    const base = this.nodeBase;
    const hash = this.hashOf(key);
    if (this.ring !== null) {
      const s = this.ring.ownerSkipping(hash, (shard) => !group.isMarkedDown(instance, base + shard));
      return s < 0 ? -1 : base + s;
    }
    let live = 0;
    for (let i = 0; i < this.active; i++) if (!group.isMarkedDown(instance, base + this.members[i]!)) live++;
    if (live === 0) return -1;
    let pick = hash % live;
    for (let i = 0; i < this.active; i++) if (!group.isMarkedDown(instance, base + this.members[i]!) && pick-- === 0) return base + this.members[i]!;
    return -1;
  }

  /** A read-through fill: the backing store's completed read lands in the key's shard (no client involved). */
  fillThrough(key: number): void {
    const shard = this.shardOf(key);
    if (this.dead[shard] === 1) return;
    this.stats.sets++;
    this.lru.insert(key, shard);
    if (this.lru.copies) this.lru.version[this.lru.entry(key, shard)] = this.ctx.keyVersion[key]!;
  }

  /** Every shard loses its contents (a restart of the whole tier, a flush). */
  flush(): void {
    for (let shard = 0; shard < this.slots; shard++) this.lru.clear(shard);
  }

  /** Membership change: `delta` shards join (> 0) or the highest-numbered leave (< 0). Keys are re-placed lazily. */
  resize(delta: number): void {
    if (delta > 0 && this.nextSpare < this.slots) this.inRing[this.nextSpare++] = 1;
    else if (delta < 0 && this.active > 1) this.inRing[this.members[this.active - 1]!] = 0;
    else return;
    this.stats.membershipChanges++;
    this.rebuildMembership();
  }

  /** Restarts one dead shard (empty), back into the ring; false when none is dead. */
  restoreOne(): boolean {
    for (let shard = 0; shard < this.slots; shard++) {
      if (this.dead[shard] !== 1) continue;
      this.restart(shard);
      return true;
    }
    return false;
  }

  private restart(shard: number): void {
    if (this.dead[shard] !== 1) return;
    this.dead[shard] = 0;
    this.deadCount--;
    this.stats.restarts++;
    if (this.inRing[shard] !== 1) {
      this.inRing[shard] = 1;
      this.stats.membershipChanges++;
      this.rebuildMembership();
    }
  }

  /**
   * The shard's host ran out of (fragmented) memory: its contents are gone, what waited in its
   * queue is reset, and it refuses requests until restarted. The cluster manager takes it out of
   * the ring only while few shards are dead (autoRemove).
   */
  private kill(shard: number): void {
    this.oomPending[shard] = 0;
    if (this.dead[shard] === 1) return;
    this.dead[shard] = 1;
    this.deadCount++;
    this.stats.oomKills++;
    this.lru.clear(shard);
    const queue = this.queues[shard]!;
    while (queue.size > 0) {
      const task = this.ctx.tasks.items[queue.popFront()]!;
      this.stats.refused++;
      this.reject(task, CONNECTION_RESET);
    }
    const auto = this.spec.autoRemove;
    if (auto !== undefined && this.deadCount <= auto.maxDead && this.inRing[shard] === 1 && this.active > 1) {
      this.inRing[shard] = 0;
      this.stats.membershipChanges++;
      this.rebuildMembership();
    }
    const delay = this.spec.memory?.restartDelay ?? Number.POSITIVE_INFINITY;
    if (Number.isFinite(delay)) this.ctx.sim.after(delay, this.handlerId, EV_RESTART, shard);
  }

  private rebuildMembership(): void {
    let n = 0;
    for (let sh = 0; sh < this.slots; sh++) if (this.inRing[sh] === 1) this.members[n++] = sh;
    this.active = n;
    this.ring?.build(Array.from(this.members.subarray(0, n)));
    this.shardOfKey.fill(UNKNOWN_SHARD);
  }

  /** MB in use on a shard's host: base + socket buffers of its connections and of its queued work. */
  private memoryUsedMb(shard: number): number {
    const m = this.spec.memory!;
    return m.base + m.perConnection * this.ctx.connections[this.nodeBase + shard]! + m.perQueuedOp * (this.queues[shard]!.size + this.busy[shard]!);
  }

  /** Memory of the worst shard now, as a share of what it can allocate. */
  memoryPressure(): number {
    const m = this.spec.memory;
    if (m === undefined) return 0;
    let worst = 0;
    for (let sh = 0; sh < this.slots; sh++) if (this.dead[sh] !== 1) worst = Math.max(worst, this.memoryUsedMb(sh) / (m.limit * (1 - m.fragmentation)));
    return worst;
  }

  private checkMemory(shard: number): void {
    const m = this.spec.memory;
    if (m === undefined || this.oomPending[shard] === 1) return;
    if (this.memoryUsedMb(shard) <= m.limit * (1 - m.fragmentation)) return;
    this.oomPending[shard] = 1;
    this.ctx.sim.after(0, this.handlerId, EV_OOM, shard);
  }

  private reject(task: Task, reason: number): void {
    task.state = TASK_REJECTED;
    task.reason = reason;
    this.ctx.sim.after(0, this.handlerId, EV_REJECT, task.id);
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
    if (this.dead[shard] === 1) {
      this.stats.refused++;
      return this.reject(task, CONNECTION_REFUSED);
    }
    const loss = this.spec.packetLoss;
    if (loss !== undefined && shard < loss.shards && this.lossRng.next() < loss.probability) {
      // Dropped on the way: no reply ever comes, the client's timeout decides.
      this.stats.lost++;
      this.ctx.freeTask(task);
      return;
    }
    if (this.busy[shard]! < this.workers) {
      this.start(task);
      return this.checkMemory(shard);
    }
    const queue = this.queues[shard]!;
    if (queue.size < this.queueLimit) {
      task.state = TASK_QUEUED;
      queue.pushBack(task.id);
      return this.checkMemory(shard);
    }
    this.stats.rejected++;
    this.reject(task, QUEUE_FULL);
  }

  handle(code: number, taskId: number): void {
    if (code === EV_OOM) return this.kill(taskId);
    if (code === EV_RESTART) return this.restart(taskId);
    const task = this.ctx.tasks.items[taskId]!;
    if (code === EV_REJECT) {
      this.ctx.flow.reply(task.originCall, task.originGen, task.reason, false);
      this.ctx.freeTask(task);
      return;
    }
    if (code === EV_SENT) return this.replied(task);
    const shard = task.shard;
    let hit = false;
    const copies = this.lru.copies;
    if (task.isSet) {
      this.stats.sets++;
      if (this.dead[shard] !== 1) {
        this.lru.insert(task.key, shard);
        if (copies) this.lru.version[this.lru.entry(task.key, shard)] = this.ctx.keyVersion[task.key]!;
      }
    } else {
      this.stats.gets++;
      hit = this.lru.touch(task.key, shard);
      if (hit) {
        this.stats.hits++;
        if (copies && this.lru.version[this.lru.entry(task.key, shard)]! < this.ctx.keyVersion[task.key]!) this.stats.staleReads++;
      }
    }
    task.reason = 0;
    task.isSet = hit; // from here on: whether the reply carries the value
    this.busy[shard]!--;
    const queue = this.queues[shard]!;
    if (queue.size > 0) this.start(this.ctx.tasks.items[this.lifo ? queue.popBack() : queue.popFront()]!);
    if (this.nicBytesPerUs === Number.POSITIVE_INFINITY) return this.replied(task);
    // The worker has written the reply into the socket; the NIC sends replies in order.
    const bytes = this.spec.replyOverhead + (hit ? this.valueOf(task.key) : 0);
    this.stats.bytesSent += bytes;
    const sentAt = Math.max(this.ctx.sim.nowUs, this.nicFreeAtUs[shard]!) + Math.ceil(bytes / this.nicBytesPerUs);
    this.nicFreeAtUs[shard] = sentAt;
    this.ctx.sim.at(sentAt, this.handlerId, EV_SENT, task.id);
  }

  /** Bytes queued on the busiest shard's NIC, as the time it needs to send them (µs). */
  nicBacklogUs(): number {
    let worst = 0;
    const now = this.ctx.sim.nowUs;
    for (let s = 0; s < this.slots; s++) worst = Math.max(worst, this.nicFreeAtUs[s]! - now);
    return worst;
  }

  private replied(task: Task): void {
    this.ctx.flow.reply(task.originCall, task.originGen, 0, task.isSet);
    this.ctx.freeTask(task);
  }

  private start(task: Task): void {
    task.state = TASK_RUNNING;
    this.busy[task.shard]!++;
    let factor = this.slowdown;
    if (this.connectionOverhead > 0) factor *= 1 + (this.connectionOverhead * this.ctx.connections[this.nodeBase + task.shard]!) / 1000;
    let us = this.serviceTime();
    if (factor !== 1) us = Math.round(us * factor);
    us += this.extraLatencyUs;
    this.ctx.sim.after(this.quotaPeriodUs > 0 ? this.throttled(task.shard, us) : us, this.handlerId, EV_OP_DONE, task.id);
  }

  /**
   * CFS quota: the shard may run `quota` µs of work per period. Work that does not fit waits for
   * the next period(s): returns the op's delay from now including that wait.
   */
  private throttled(shard: number, us: number): number {
    const now = this.ctx.sim.nowUs;
    const period = this.quotaPeriodUs;
    let start = now;
    let periodIndex = Math.floor(now / period);
    if (periodIndex > this.quotaPeriod[shard]!) {
      this.quotaPeriod[shard] = periodIndex;
      this.quotaUsed[shard] = 0;
    }
    // Booked work may already run into later periods: continue from the shard's booking.
    periodIndex = this.quotaPeriod[shard]!;
    if (this.quotaUsed[shard]! + us > this.quotaUs) {
      this.stats.throttled++;
      periodIndex++;
      this.quotaPeriod[shard] = periodIndex;
      this.quotaUsed[shard] = 0;
      start = Math.max(now, periodIndex * period);
    }
    this.quotaUsed[shard]! += us;
    return start - now + us;
  }

  private hashOf(key: number): number {
    if (this.hashKnown[key] === 0) {
      this.keyHash[key] = hashKey(this.spec.hash, this.keyspace.keyName(key));
      this.hashKnown[key] = 1;
    }
    return this.keyHash[key]!;
  }

  private place(hash: number): number {
    if (this.active === 1) return this.members[0]!;
    return this.ring !== null ? this.ring.owner(hash) : this.members[hash % this.active]!;
  }

  /** A key's value size, drawn once (named hot keys from hotKeyValueSize). */
  private valueOf(key: number): number {
    let bytes = this.valueBytes[key]!;
    if (bytes === 0) {
      bytes = 1 + (key >= this.keyspace.count ? this.hotValueSize() : this.valueSize());
      this.valueBytes[key] = bytes;
    }
    return bytes - 1;
  }

  /**
   * Fills every shard with its most popular keys (ids are popularity ranks), most popular most
   * recently used, so the first evictions take the least popular. Named hot keys start cold.
   */
  private warm(): void {
    const shards = this.active;
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
