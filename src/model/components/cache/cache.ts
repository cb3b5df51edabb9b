import { keyIds } from '../../../schedule/keys.ts';
import type { EventHandler } from '../../engine/simulation.ts';
import { IntDeque } from '../../engine/int-deque.ts';
import type { Sampler } from '../../../schedule/sample.ts';
import type { Keyspace } from '../../../schedule/types.ts';
import type { Rng } from '../../../schedule/rng.ts';
import type { Cache } from '../../../profile/topology/index.ts';
import type { ClientGroupModel } from '../client-group/client-group.ts';
import { VIEW_BACK, VIEW_DEAD } from '../../core/view.ts';
import type { ModelContext, ModelNode } from '../../core/context.ts';
import { CONNECTION_REFUSED, CONNECTION_RESET, QUEUE_FULL } from '../../core/reasons.ts';
import { isReadOp, OP_ADD, OP_APPEND, OP_CAS, OP_DECR, OP_DELETE, OP_FILL, OP_GET, OP_GETS, OP_INCR, OP_PREPEND, OP_REPLACE, OP_SET, OP_TOUCH } from '../../core/ops.ts';
import { STAGE_FILL, TASK_QUEUED, TASK_REJECTED, TASK_RUNNING, type Call, type Prober, type Task } from '../../core/records.ts';
import { DIAL_BACKLOG } from '../../core/server-connections.ts';
import { AcceptQueue } from './accept-queue.ts';
import { type BlipEffect, ShardFaults } from './faults.ts';
import { type ShardList, shardListHas } from '../../../profile/topology/shards.ts';
import { CpuQuota } from './cpu-quota.ts';
import { ShardedLru } from './lru.ts';
import { ShardMemory } from './memory.ts';
import { ShardNics } from './nic.ts';
import { ShardPlacement } from './placement.ts';
import type { PerShard } from './shard-specs.ts';
import { ShardLoad } from './shard-load.ts';
import { type RejoinCause, StaleCopies, staleReadCounts } from './stale.ts';
import { warmShards } from './warm.ts';
import { CacheOpStats } from './op-stats.ts';
import { itemSizes } from './slabs.ts';

const EV_OP_DONE = 1;
const EV_REJECT = 2;
const EV_SENT = 3;
const EV_OOM = 4;
const EV_RESTART = 5;
const EV_BACK_UP = 6;

export class CacheStats {
  gets = 0;
  hits = 0;
  sets = 0;
  rejected = 0;
  /** Bytes put on the wire by every shard's NIC. */
  bytesSent = 0;
  /** Membership changes (shards added or removed). */
  membershipChanges = 0;
  /** Shards OOM-killed, and restarted (empty: after an OOM kill or a monitor restart). */
  oomKills = 0;
  restarts = 0;
  /** Requests refused by a dead shard, or lost in its queue when it died. */
  refused = 0;
  /** Requests lost to packet loss (the client times out). */
  lost = 0;
  /** Ops that had to wait for the next CPU-quota period. */
  throttled = 0;
  /** Gets that found their key older than the cache's ttl: it expired (a miss; the entry is dropped). */
  expired = 0;
  /** Shards flushed as they came back (a `rejoin` cause set to cold). */
  rejoinFlushes = 0;
  /** Hits on a copy out of date for longer than `staleAfter` (copies: true): a fault, not the write race. */
  staleReads = 0;
  /** The stale reads by why their copy was out of date (they sum to staleReads). */
  readonly staleReadsByCause = staleReadCounts();
  /** Shards restarted by a health-check monitor (each comes back empty, unless `rejoin.restart` is warm). */
  monitorRestarts = 0;
  /** Hits on a copy out of date for at most `staleAfter`: the normal window between a database write and the cache update. */
  staleReadsInWindow = 0;
}

/** One cache, built from its topology section. */
export interface CacheConfig {
  name: string;
  spec: Cache;
  /** Global index of shard 0; shard s is node nodeBase + s. */
  nodeBase: number;
  /** Shard slots: the initial shards plus every shard the timeline may add. */
  slots: number;
  keyspace: Keyspace;
  /** Per shard slot (shard classes may differ). */
  serviceTime: Sampler[];
  shards: PerShard;
  valueSize: Sampler;
  hotValueSize: Sampler;
  /** With itemMemory: the value sizes items take (the cache's valueSize on a stream of its own). */
  itemValueSize?: Sampler;
  /** Decides which requests packet loss drops. */
  lossRng: Rng;
  /** Decides which requests blips and shard-class loss drop (its own stream: faults shift no other draw). */
  faultRng: Rng;
  /** Standing loss probability per shard slot (shard classes); zeros without. */
  standingLoss: Float64Array;
}

/**
 * A sharded cache (memcached-like): per shard `workers` threads and a queue in front of its parts —
 * placement (which shard holds a key, through modulo or a ketama ring; a membership change
 * re-places keys, and moved keys miss until filled on their new shard), the LRU key sets, the NICs
 * that send replies FIFO at their bandwidth, host memory (OOM kills) and the CPU quota. A get is a
 * hit when the key is present at the end of its service time; a set inserts it.
 */
export class CacheNode implements ModelNode, EventHandler {
  readonly name: string;
  readonly stats = new CacheStats();
  readonly nodeBase: number;
  readonly slots: number;
  readonly busy: Int32Array;
  readonly queues: IntDeque[];
  readonly lru: ShardedLru;
  readonly placement: ShardPlacement;
  readonly nics: ShardNics;
  readonly memory: ShardMemory;
  readonly load: ShardLoad;
  /** Blips of the timeline and per-shard loss. */
  readonly faults: ShardFaults;
  private readonly faultRng: Rng;
  /** Null: no CPU quota. */
  private readonly quota: CpuQuota | null;
  /** Service-time multiplier (a capacity dip). */
  slowdown = 1;
  /** Injected latency added to every op (timeline `latency`). */
  extraLatencyUs = 0;
  private readonly spec: Cache;
  private readonly workers: Float64Array;
  private readonly queueLimit: number;
  private readonly lifo: boolean;
  private readonly connectionOverhead: number;
  private readonly serviceTime: Sampler[];
  private readonly lossRng: Rng;
  private readonly handlerId: number;
  private readonly backlogs: boolean;
  /** Connections parked in the kernel's accept queue at the fd limit. */
  readonly acceptQueue: AcceptQueue;
  /** Per shard: incremented when its process dies; tasks of an older epoch belong to the dead process. */
  private readonly epochs: Int32Array;
  /** With a ttl: when each entry was last set (µs); empty without one. */
  private readonly setAtUs: Float64Array;
  /** Keys of the keyspace (its hot keys included). */
  private readonly keyCount: number;
  /** With copies: why each copy fell behind. */
  private readonly staleCopies: StaleCopies;
  /** Per-op counters; `opsUsed` once a request made an op other than get or set a TTL (until then result.json shows none). */
  readonly ops = new CacheOpStats();
  opsUsed = false;
  /** Per entry: the virtual time its item expires (µs; 0: never), and whether a get fetched it since its store. Allocated at the first TTL. */
  private expiresAtUs: Float64Array = new Float64Array(0);
  private fetched: Uint8Array = new Uint8Array(0);

  constructor(
    private readonly ctx: ModelContext,
    config: CacheConfig,
  ) {
    const { spec, slots, keyspace } = config;
    this.name = config.name;
    this.spec = spec;
    this.workers = config.shards.workers;
    this.queueLimit = spec.queue.limit;
    this.lifo = spec.queue.discipline === 'lifo';
    this.connectionOverhead = spec.connectionOverhead;
    this.nodeBase = config.nodeBase;
    this.slots = slots;
    this.serviceTime = config.serviceTime;
    this.lossRng = config.lossRng;
    this.faultRng = config.faultRng;
    this.faults = new ShardFaults(config.standingLoss);
    this.busy = new Int32Array(slots);
    this.acceptQueue = new AcceptQueue(slots);
    this.backlogs = config.shards.backlog.some((b) => b > 0);
    this.epochs = new Int32Array(slots);
    this.load = new ShardLoad(slots);
    this.queues = Array.from({ length: slots }, () => new IntDeque(16));
    this.lru = new ShardedLru(keyIds(keyspace), slots, spec.capacity, spec.copies);
    this.placement = new ShardPlacement({ cacheName: config.name, hash: spec.hash, placement: spec.placement, shards: spec.shards, slots, keyspace });
    this.nics = new ShardNics(
      { bandwidth: config.shards.nic, replyOverhead: spec.replyOverhead, slots, keyspace, valueSize: config.valueSize, hotValueSize: config.hotValueSize },
      this.stats,
    );
    this.memory = new ShardMemory(
      config.shards.memory,
      slots,
      {
        connections: (shard) => ctx.connections[this.nodeBase + shard]!,
        requests: (shard) => this.queues[shard]!.size + this.busy[shard]!,
      },
      spec.memory?.restartDelay ?? Number.POSITIVE_INFINITY,
    );
    this.quota = spec.cpuQuota ? new CpuQuota(spec.cpuQuota.cores * spec.cpuQuota.period, spec.cpuQuota.period, slots, this.stats) : null;
    this.handlerId = ctx.sim.register(this);
    this.keyCount = keyIds(keyspace);
    this.setAtUs = new Float64Array(Number.isFinite(spec.ttl) ? this.keyCount * (spec.copies ? slots : 1) : 0);
    this.staleCopies = new StaleCopies(ctx, this.lru, this.keyCount, this.stats.staleReadsByCause);
    // Item sizes draw on a stream of their own: giving a cache item memory shifts no other draw.
    if (spec.itemMemory) this.lru.limitBytes(spec.itemMemory.limitMb * 1024 * 1024, itemSizes(keyspace, config.itemValueSize!, spec.itemMemory.growthFactor));
    if (spec.warm) warmShards(this.lru, this.placement.active, keyspace.count, (key) => this.placement.shardOf(key));
  }

  /** True when the shards have an accept queue beyond their fd limit. */
  get backlogged(): boolean {
    return this.backlogs;
  }

  /** A timeline blip starts (`on`) or ends on the listed shards; a shard whose outage ends comes back. */
  blip(shards: ShardList, effect: BlipEffect, on: boolean): void {
    for (let shard = 0; shard < this.slots; shard++) {
      if (!shardListHas(shards, shard)) continue;
      const wasDown = this.faults.down[shard] === 1;
      this.faults.set(shard, effect, on);
      if (wasDown && this.faults.down[shard] === 0) this.cameBack(shard, 'outage');
    }
  }

  /** Shards in the cluster now. */
  get shards(): number {
    return this.placement.active;
  }

  nodeOfKey(key: number): number {
    return this.nodeBase + this.placement.shardOf(key);
  }

  /**
   * The key's node in one client instance's view that excludes the nodes it marked dead: the next
   * live server on the ketama ring (modulo placement: hash mod live servers). -1 when that instance
   * holds every node for dead.
   */
  nodeOfKeyAvoiding(key: number, group: ClientGroupModel, instance: number): number {
    const base = this.nodeBase;
    const shard = this.placement.shardAvoiding(key, (s) => {
      const view = group.viewOf(instance, base + s);
      if (view === VIEW_BACK) this.markDownLapsed(base + s);
      return view !== VIEW_DEAD;
    });
    return shard < 0 ? -1 : base + shard;
  }

  /** A read-through fill: the backing store's completed read lands in the key's shard (no client involved). */
  fillThrough(key: number): void {
    const shard = this.placement.shardOf(key);
    if (this.memory.dead[shard] === 1) return;
    this.stats.sets++;
    this.ops.cmd_set++;
    this.ops.fills++;
    this.store(key, shard, 0);
  }

  /** Every shard loses its contents (a restart of the whole tier, a flush). */
  flush(): void {
    for (let shard = 0; shard < this.slots; shard++) this.lru.clear(shard);
  }

  /**
   * Membership change: a shard joins (> 0: the one removed last rejoins, as `rejoin.membership`
   * says) or the highest-numbered leaves (< 0). Keys are re-placed lazily.
   */
  resize(delta: number): void {
    const rejoins = delta > 0 && this.placement.hasRemoved;
    const shard = this.placement.resize(delta);
    if (shard < 0) return;
    this.stats.membershipChanges++;
    if (rejoins) this.cameBack(shard, 'membership');
  }

  /** A named shard leaves the ring (a no-op when it is not in it, or is the last one). */
  removeShard(shard: number): void {
    if (this.placement.remove(shard)) this.stats.membershipChanges++;
  }

  /** A client view stopped holding `node` dead: it takes the node back, as `rejoin.markDown` says. */
  markDownLapsed(node: number): void {
    this.cameBack(node - this.nodeBase, 'markDown');
  }

  /** A write of `key` skipped its node (the writer holds it dead): the copy there falls behind. */
  writeBypassed(key: number, node: number): void {
    if (this.lru.copies) this.staleCopies.bypassed(key, node - this.nodeBase);
  }

  /**
   * The shard is back from `cause`. Cold: flushed, so it misses instead of serving what may have
   * changed while it was away; back from a mark-down, the copies of its keys that clients routing
   * around it left on other shards go too (a gutter pool's entries end with the ejection), or the
   * next ejection would read them, behind. Warm: it keeps its copies; those already behind are stale.
   */
  private cameBack(shard: number, cause: RejoinCause): void {
    if (this.spec.rejoin[cause] === 'warm') {
      // Copies a writer skipped during a mark-down were marked as it skipped them.
      if (this.lru.copies && cause !== 'markDown') this.staleCopies.survived(shard, cause);
      return;
    }
    if (cause === 'markDown' && this.lru.copies) this.dropCopiesAway(shard);
    if (this.lru.size[shard]! === 0) return;
    this.lru.clear(shard);
    this.stats.rejoinFlushes++;
  }

  /** Drops every copy of `shard`'s keys held on another shard. */
  private dropCopiesAway(shard: number): void {
    for (let key = 0; key < this.keyCount; key++) {
      if (this.placement.shardOf(key) !== shard) continue;
      for (let other = 0; other < this.slots; other++) if (other !== shard) this.lru.remove(key, other);
    }
  }

  /** Restarts one dead shard (empty), back into the ring; false when none is dead. */
  restoreOne(): boolean {
    for (let shard = 0; shard < this.slots; shard++) {
      if (this.memory.dead[shard] !== 1) continue;
      this.restart(shard);
      return true;
    }
    return false;
  }

  /** Memory of the worst shard now, as a share of what it can allocate. */
  memoryPressure(): number {
    return this.memory.pressure();
  }

  /** Per-shard load and hit ratio since the previous sample (once per interval). */
  sampleShardLoad() {
    return this.load.sample(this.ctx.sim.nowUs, this.shards);
  }

  /** Bytes queued on the busiest shard's NIC, as the time it needs to send them (µs). */
  nicBacklogUs(): number {
    return this.nics.backlogUs(this.ctx.sim.nowUs);
  }

  accept(call: Call, node: number): void {
    const task = this.ctx.tasks.alloc();
    const shard = node - this.nodeBase;
    task.originCall = call.id;
    task.originGen = call.gen;
    task.key = call.key;
    task.shard = shard;
    task.isSet = call.stage === STAGE_FILL;
    // A fill (a miss's write-back) is a set; a read stays the get or gets it was.
    task.op = task.isSet && isReadOp(call.op) ? OP_FILL : call.op;
    task.ttlUs = call.ttlUs;
    task.reason = 0;
    task.epoch = this.epochs[shard]!;
    call.serverTask = task.id;
    this.load.op(shard);
    if (this.arrived(task, node, call.connState)) this.admit(task);
  }

  /**
   * A request reaches the shard: refused when nothing listens, parked while its connection waits in
   * the accept queue, refused by an outage blip, lost to packet loss (no reply: the client's timeout
   * decides) — or on to a worker (true).
   */
  private arrived(task: Task, node: number, connState: number): boolean {
    const shard = task.shard;
    if (this.memory.dead[shard] === 1 || this.ctx.serverConns.down[node] === 1) return this.refuse(task);
    if (connState === DIAL_BACKLOG) {
      if (!this.ctx.serverConns.canAccept(node)) {
        task.state = TASK_QUEUED;
        this.acceptQueue.park(shard, task.id);
        return false;
      }
      this.ctx.serverConns.acceptFromBacklog(node);
    }
    if (this.faults.down[shard] === 1) return this.refuse(task);
    const loss = this.spec.packetLoss;
    if (this.faults.drop(shard, this.faultRng) || (loss !== undefined && shard < loss.shards && this.lossRng.next() < loss.probability)) {
      this.stats.lost++;
      this.ctx.freeTask(task);
      return false;
    }
    return true;
  }

  private refuse(task: Task): false {
    this.stats.refused++;
    this.reject(task, CONNECTION_REFUSED);
    return false;
  }

  /** An fd of the shard was freed: the oldest connections in its accept queue get one each. */
  connectionFreed(node: number): void {
    const shard = node - this.nodeBase;
    const conns = this.ctx.serverConns;
    while (conns.canAccept(node)) {
      const id = this.acceptQueue.next(shard);
      if (id < 0) return;
      conns.acceptFromBacklog(node);
      this.admit(this.ctx.tasks.items[id]!);
    }
  }

  /** A request on an accepted connection: a worker, else the queue, else `queue_full`. */
  private admit(task: Task): void {
    const shard = task.shard;
    if (this.busy[shard]! < this.workers[shard]!) {
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

  /** A health-check probe on the shard (an op that touches no key), answered to `prober`; returns its task id. */
  probe(shard: number, prober: Prober, seq: number, connState: number): number {
    const task = this.ctx.tasks.alloc();
    const node = this.nodeBase + shard;
    task.originCall = -1;
    task.originGen = seq;
    task.shard = shard;
    task.isSet = false;
    task.reason = 0;
    task.epoch = this.epochs[shard]!;
    task.prober = prober;
    const id = task.id;
    if (this.arrived(task, node, connState)) this.admit(task);
    return id;
  }

  /**
   * A health-check monitor restarts the shard's process: like a crash (queued work, connections
   * and accept queue gone), refusing connections for `downUs`, then back — empty, or with its
   * contents when `rejoin.restart` is warm (memcached's warm restart keeps them in a memory file).
   */
  restartShard(shard: number, downUs: number): void {
    this.stats.monitorRestarts++;
    this.crash(shard, this.spec.rejoin.restart === 'warm');
    this.ctx.sim.after(downUs, this.handlerId, EV_BACK_UP, shard);
  }

  /** A shard a monitor probes: in the ring and not OOM-killed (bringing those back is the operators' `restoreShards`). */
  slotInUse(shard: number): boolean {
    return this.placement.isMember(shard) && this.memory.dead[shard] !== 1;
  }

  handle(code: number, taskId: number): void {
    if (code === EV_OOM) return this.kill(taskId);
    if (code === EV_RESTART) return this.restart(taskId);
    if (code === EV_BACK_UP) {
      this.stats.restarts++;
      this.ctx.serverConns.up(this.nodeBase + taskId);
      return this.cameBack(taskId, 'restart');
    }
    const task = this.ctx.tasks.items[taskId]!;
    if (code === EV_REJECT) return this.finish(task, task.reason, false);
    if (code === EV_SENT) return this.replied(task);
    const shard = task.shard;
    // Its process died while the op ran: the connection was reset.
    if (task.epoch !== this.epochs[shard]) return this.finish(task, CONNECTION_RESET, false);
    const hit = task.prober !== null ? false : this.execute(task, shard);
    task.reason = 0;
    task.isSet = hit; // from here on: whether the reply carries the value
    this.busy[shard]!--;
    const queue = this.queues[shard]!;
    if (queue.size > 0) this.start(this.ctx.tasks.items[this.lifo ? queue.popBack() : queue.popFront()]!);
    if (this.nics.unlimited) return this.replied(task);
    // The worker has written the reply into the socket; the NIC sends replies in order.
    this.ctx.sim.at(this.nics.send(shard, task.key, hit, this.ctx.sim.nowUs), this.handlerId, EV_SENT, task.id);
  }

  /**
   * The op at the end of its service time, as memcached executes it on one item; true when the
   * reply carries a value (a get's hit). Writes on a shard that died meanwhile store nothing.
   */
  private execute(task: Task, shard: number): boolean {
    const op = task.op;
    if (op === OP_GET) return this.get(task.key, shard);
    if (op === OP_FILL) this.ops.fills++;
    if ((op === OP_SET && task.ttlUs === 0) || op === OP_FILL) return this.set(task.key, shard);
    return this.otherOp(op, task.key, shard, task.ttlUs);
  }

  /** A set at the end of its service time; never a hit. */
  private set(key: number, shard: number): boolean {
    this.stats.sets++;
    this.ops.cmd_set++;
    if (this.memory.dead[shard] !== 1) this.store(key, shard, 0);
    return false;
  }

  /**
   * gets, set with a TTL, add, replace, cas, append, prepend, delete, incr, decr, touch: anything but
   * the plain get and set every profile has made so far (those keep their path, so such profiles
   * run as before). "Present" is in the shard's LRU and not expired.
   */
  private otherOp(op: number, key: number, shard: number, ttlUs: number): boolean {
    this.opsUsed = true;
    if (op === OP_GETS) return this.get(key, shard); // the model holds no CAS uniques: gets is get
    const ops = this.ops;
    const alive = this.memory.dead[shard] !== 1;
    const present = this.present(key, shard);
    switch (op) {
      case OP_SET:
        return this.storeOp(key, shard, ttlUs, alive);
      case OP_ADD:
        // memcached bumps the item a failed add found to the head of its LRU.
        if (present) ops.add_not_stored++;
        else ops.add_stored++;
        if (!present) return this.storeOp(key, shard, ttlUs, alive);
        this.bump(key, shard);
        return this.countSet();
      case OP_REPLACE:
        if (present) ops.replace_stored++;
        else ops.replace_not_stored++;
        return present ? this.storeOp(key, shard, ttlUs, alive) : this.countSet();
      case OP_CAS:
        // Simplification: with no uniques, a cas on a present item always matches (never EXISTS).
        if (present) ops.cas_hits++;
        else ops.cas_misses++;
        return present ? this.storeOp(key, shard, ttlUs, alive) : this.countSet();
      case OP_APPEND:
      case OP_PREPEND: {
        const stored = op === OP_APPEND ? 'append_stored' : 'prepend_stored';
        if (present) ops[stored]++;
        else ops[op === OP_APPEND ? 'append_not_stored' : 'prepend_not_stored']++;
        // The value grows in memcached; the model holds keys, so only recency changes (the expiry stays).
        if (present) this.bump(key, shard);
        return this.countSet();
      }
      case OP_DELETE:
        if (present) {
          ops.delete_hits++;
          this.lru.remove(key, shard);
        } else ops.delete_misses++;
        return false;
      case OP_INCR:
      case OP_DECR:
        // The model's values are numbers whenever incr/decr reach them (no non-numeric replies).
        if (op === OP_INCR) present ? ops.incr_hits++ : ops.incr_misses++;
        else present ? ops.decr_hits++ : ops.decr_misses++;
        return present ? this.bump(key, shard) : false;
      case OP_TOUCH:
        ops.cmd_touch++;
        if (!present) {
          ops.touch_misses++;
          return false;
        }
        ops.touch_hits++;
        this.bump(key, shard);
        this.setExpiry(this.lru.entry(key, shard), ttlUs);
        return false;
    }
    return false;
  }

  /** A storage command that stores: set's counters and the item with its expiry. */
  private storeOp(key: number, shard: number, ttlUs: number, alive: boolean): boolean {
    this.stats.sets++;
    this.ops.cmd_set++;
    if (alive) this.store(key, shard, ttlUs);
    return false;
  }

  /** A storage command that stored nothing still counts in memcached's cmd_set. */
  private countSet(): boolean {
    this.ops.cmd_set++;
    return false;
  }

  /** The item is used: most recently used on its shard; no reply value. */
  private bump(key: number, shard: number): boolean {
    this.lru.touch(key, shard);
    return false;
  }

  /** True when `shard` holds the key unexpired; an expired item found here is dropped, as memcached drops it. */
  private present(key: number, shard: number): boolean {
    if (!this.lru.holds(key, shard)) return false;
    const entry = this.lru.entry(key, shard);
    if (!this.expired(entry)) return true;
    this.dropExpired(key, shard, entry);
    return false;
  }

  private expired(entry: number): boolean {
    const now = this.ctx.sim.nowUs;
    if (this.setAtUs.length > 0 && now - this.setAtUs[entry]! > this.spec.ttl) return true;
    if (this.expiresAtUs.length === 0) return false;
    const at = this.expiresAtUs[entry]!;
    return at > 0 && now >= at;
  }

  private dropExpired(key: number, shard: number, entry: number): void {
    this.lru.remove(key, shard);
    this.stats.expired++;
    if (this.fetched.length > 0 && this.fetched[entry] === 0) this.ops.expired_unfetched++;
  }

  /** The key's newest value lands on `shard`: its version (copies), set time (ttl) and expiry (a request's TTL, µs; 0: none) with it. */
  private store(key: number, shard: number, ttlUs: number): void {
    this.lru.insert(key, shard);
    const entry = this.lru.entry(key, shard);
    if (this.lru.copies) {
      this.lru.version[entry] = this.ctx.keyVersion[key]!;
      this.staleCopies.stored(entry);
    }
    if (this.setAtUs.length > 0) this.setAtUs[entry] = this.ctx.sim.nowUs;
    this.setExpiry(entry, ttlUs);
  }

  private setExpiry(entry: number, ttlUs: number): void {
    if (ttlUs > 0 && this.expiresAtUs.length === 0) {
      // The first TTL of the run: from here on every entry has an expiry (0 = none) and a fetched bit.
      const entries = this.keyCount * (this.lru.copies ? this.slots : 1);
      this.expiresAtUs = new Float64Array(entries);
      this.fetched = new Uint8Array(entries);
      this.opsUsed = true;
    }
    if (this.expiresAtUs.length === 0) return;
    this.expiresAtUs[entry] = ttlUs > 0 ? this.ctx.sim.nowUs + ttlUs : 0;
    this.fetched[entry] = 0;
  }

  private get(key: number, shard: number): boolean {
    this.stats.gets++;
    let hit = this.lru.touch(key, shard);
    if (hit) {
      const entry = this.lru.entry(key, shard);
      if (this.expired(entry)) {
        // Expired: memcached drops it on the get that finds it, and answers a miss.
        this.dropExpired(key, shard, entry);
        this.ops.get_expired++;
        hit = false;
      } else if (this.fetched.length > 0) this.fetched[entry] = 1;
    }
    this.load.get(shard, hit);
    if (hit) {
      this.stats.hits++;
      if (this.lru.copies) this.countStale(key, shard);
    }
    return hit;
  }

  /** A hit on an old copy: within the write-to-update window, or stale beyond it (counted by cause). */
  private countStale(key: number, shard: number): void {
    const entry = this.lru.entry(key, shard);
    const version = this.lru.version[entry]!;
    if (version >= this.ctx.keyVersion[key]!) return;
    if (this.ctx.staleForUs(key, version) <= this.spec.staleAfter) {
      this.stats.staleReadsInWindow++;
      return;
    }
    this.stats.staleReads++;
    this.staleCopies.count(entry, shard, this.placement.shardOf(key));
  }

  private replied(task: Task): void {
    this.finish(task, 0, task.isSet);
  }

  /**
   * The reply (or rejection) goes out; a connection its client closed meanwhile is closed by the
   * shard now, freeing its fd — unless the process died since (the fd went with it).
   */
  private finish(task: Task, reason: number, hit: boolean): void {
    if (task.prober !== null) task.prober.probeDone(task.shard, task.originGen, reason);
    else this.ctx.flow.reply(task.originCall, task.originGen, reason, hit);
    const release = task.connClosed && task.epoch === this.epochs[task.shard];
    const node = this.nodeBase + task.shard;
    this.ctx.freeTask(task);
    if (release) this.ctx.serverConns.released(node);
  }

  private start(task: Task): void {
    task.state = TASK_RUNNING;
    this.busy[task.shard]!++;
    let factor = this.slowdown;
    if (this.connectionOverhead > 0) factor *= 1 + (this.connectionOverhead * this.ctx.connections[this.nodeBase + task.shard]!) / 1000;
    let us = this.serviceTime[task.shard]!();
    if (factor !== 1) us = Math.round(us * factor);
    us += this.extraLatencyUs + this.faults.extraUs[task.shard]!;
    this.ctx.sim.after(this.quota !== null ? this.quota.delayUs(task.shard, us, this.ctx.sim.nowUs) : us, this.handlerId, EV_OP_DONE, task.id);
  }

  private reject(task: Task, reason: number): void {
    task.state = TASK_REJECTED;
    task.reason = reason;
    this.ctx.sim.after(0, this.handlerId, EV_REJECT, task.id);
  }

  private checkMemory(shard: number): void {
    if (this.memory.crossedLimit(shard)) this.ctx.sim.after(0, this.handlerId, EV_OOM, shard);
  }

  /**
   * The shard's host ran out of (fragmented) memory: its contents are gone, what waited in its
   * queue is reset, and it refuses requests until restarted. The cluster manager takes it out of
   * the ring only while few shards are dead (autoRemove).
   */
  private kill(shard: number): void {
    if (!this.memory.kill(shard)) return;
    this.stats.oomKills++;
    this.crash(shard, false);
    const auto = this.spec.autoRemove;
    if (auto !== undefined && this.memory.deadCount <= auto.maxDead && this.placement.isMember(shard) && this.placement.active > 1) {
      this.placement.leave(shard);
      this.stats.membershipChanges++;
    }
    const delay = this.memory.restartDelayUs;
    if (Number.isFinite(delay)) this.ctx.sim.after(delay, this.handlerId, EV_RESTART, shard);
  }

  /**
   * The shard's process is gone: its work (queued, in service — replies reset), its accept queue,
   * every connection (clients find theirs reset) and, unless `keepContents`, its contents; it
   * refuses dials until up.
   */
  private crash(shard: number, keepContents: boolean): void {
    this.epochs[shard]!++;
    if (!keepContents) this.lru.clear(shard);
    this.busy[shard] = 0;
    const resetTask = (id: number) => {
      this.stats.refused++;
      this.reject(this.ctx.tasks.items[id]!, CONNECTION_RESET);
    };
    const queue = this.queues[shard]!;
    while (queue.size > 0) resetTask(queue.popFront());
    this.acceptQueue.drain(shard, resetTask);
    this.ctx.serverConns.reset(this.nodeBase + shard, true);
  }

  private restart(shard: number): void {
    if (!this.memory.revive(shard)) return;
    this.ctx.serverConns.up(this.nodeBase + shard);
    this.stats.restarts++;
    if (!this.placement.isMember(shard)) {
      this.placement.join(shard);
      this.stats.membershipChanges++;
    }
  }
}
