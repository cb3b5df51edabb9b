import { DeadlineQueue } from '../../engine/deadline-queue.ts';
import { type NodeView, VIEW_BACK, VIEW_DEAD, VIEW_LIVE } from '../../core/view.ts';
import type { EventHandler } from '../../engine/simulation.ts';
import { Rng, deriveSeed } from '../../../schedule/rng.ts';
import type { ClientGroup } from '../../../profile/topology/index.ts';
import type { ModelContext } from '../../core/context.ts';
import type { HostState } from '../host/host.ts';
import { HedgeDelay } from './hedging.ts';
import { HotKeyCache } from './hot-keys.ts';
import { Pool } from './pool.ts';
import { CHECKOUT_TIMEOUT, CONNECTION_REFUSED, DIAL_ERROR, POOL_DISABLED, TIMEOUT } from '../../core/reasons.ts';
import { CALL_BACKOFF, CALL_DIALING, CALL_SENT, CALL_WAITING, TASK_FREE, type Call } from '../../core/records.ts';
import { DIAL_ACCEPTED, DIAL_DROPPED, DIAL_REFUSED } from '../../core/server-connections.ts';

const EV_CONNECTED = 1;
const EV_BACKOFF_DONE = 2;
const EV_HEDGE = 3;

/** Counters of one client group, for the run's details. */
export class ClientGroupStats {
  attempts = 0;
  dials = 0;
  dialErrors = 0;
  closes = 0;
  timeouts = 0;
  checkoutTimeouts = 0;
  retries = 0;
  /** Retries refused because the instance's token bucket was empty. */
  retriesDenied = 0;
  /** Nodes marked dead (per instance) after consecutive failures. */
  markDowns = 0;
  /** Cache calls that skipped or re-routed around a node this instance had marked dead. */
  routedAround = 0;
  /** Cache reads that found no node to ask (ejected, or no live node on the ring): counted as misses, read from `onMiss`. */
  missedUnasked = 0;
  /** Calls failed as no_live_node: a write, or a read without `onMiss`, with no node to ask. */
  noLiveNode = 0;
  /** Write-backs after a miss skipped because the key's node was marked down (a failed write-back is ignored, as a refused one is). */
  fillsSkipped = 0;
  /** Dials refused by a destination at its connection limit. */
  refused = 0;
  /** Optional calls skipped because their pool was disabled or had no connection free. */
  optionalSkipped = 0;
  /** Optional calls that failed; their requests went on without them. */
  optionalFailed = 0;
  /** Hedged requests sent (a second copy of a request still waiting at the threshold). */
  hedges = 0;
  /** Hedges due but not sent: no connection free at once. */
  hedgesSkipped = 0;
  /** Calls waiting for a connection right now. */
  waiting = 0;
  waitingHighWater = 0;
}

/**
 * The transport side of calls through one client group: connection checkout (idle → dial →
 * FIFO wait), dialling against the host's port table, sending, the per-attempt timeout, release
 * (hand to a waiter → keep idle → close into TIME_WAIT) and retries with backoff. What a finished
 * attempt means for the call (next look-aside stage, parent request) is `ctx.flow`'s business.
 *
 * Timeouts cost no heap event each: every attempt of the group has the same timeout, so deadlines
 * queue FIFO in a `DeadlineQueue` with one heap event for its head.
 */
export class ClientGroupModel implements EventHandler {
  readonly stats = new ClientGroupStats();
  readonly pools: Pool[] = [];
  readonly instances: number;
  /** Mutable: an operator may switch a limit on mid-run (timeline `set`). */
  fanoutLimit: number;
  /** False for the implicit group of users calling `entry` directly: no pool, no timeout. */
  readonly pooled: boolean;
  private readonly targetSlot: Int32Array;
  private readonly targetCount: number;
  private readonly connectCostUs: number;
  private readonly retryCount: number;
  private readonly backoff: ClientGroup['retries']['backoff'];
  private readonly bucket: NonNullable<ClientGroup['retries']['tokenBucket']> | null;
  /** Retry tokens per instance (token bucket). */
  private readonly tokens: Float64Array;
  private readonly rng: Rng;
  private readonly handlerId: number;
  private readonly checkoutDeadlines: DeadlineQueue | null;
  private readonly replyDeadlines: DeadlineQueue | null;
  readonly markDown: NonNullable<ClientGroup['markDown']> | null;
  /** When a waiting attempt gets a hedge (null: no hedging). */
  readonly hedge: HedgeDelay | null;
  private readonly connectsFree: boolean;
  /** Hot-key detection and in-process cache (null: none). */
  readonly hotKeys: HotKeyCache | null;
  /** Per pool (instance × node): consecutive failed attempts, and until when the node is dead for that instance. */
  private readonly consecutiveFailures: Int32Array;
  private readonly deadUntilUs: Float64Array;
  /** One membership view for every instance: a node one instance ejects is dead for all (failures still counted per instance). */
  private readonly sharedView: boolean;
  /** Incremented when the process owning this group restarts: calls bound earlier are orphans. */
  private epoch = 0;

  constructor(
    private readonly ctx: ModelContext,
    readonly name: string,
    spec: ClientGroup,
    /** Destination nodes this group calls, and the host each instance runs on. */
    targets: readonly number[],
    nodeCount: number,
    host: HostState | null,
    /** Key ids from here on are the profile's named hot keys. */
    firstNamedKey: number,
    /** The end of the named hot keys' ids (one-hit wonders follow them). */
    namedKeyEnd = Number.POSITIVE_INFINITY,
  ) {
    this.instances = spec.instances;
    this.fanoutLimit = spec.fanoutLimit;
    this.pooled = host !== null;
    this.connectCostUs = spec.pool.connectCost;
    this.retryCount = spec.retries.count;
    this.backoff = spec.retries.backoff;
    this.bucket = spec.retries.tokenBucket ?? null;
    this.tokens = new Float64Array(this.bucket === null ? 0 : spec.instances).fill(this.bucket?.capacity ?? 0);
    this.rng = new Rng(deriveSeed(ctx.seed, `model:clientGroup:${name}`));
    this.handlerId = ctx.sim.register(this);
    this.targetCount = targets.length;
    this.targetSlot = new Int32Array(nodeCount).fill(-1);
    targets.forEach((node, slot) => (this.targetSlot[node] = slot));
    if (host) {
      ctx.serverConns.onReset((node) => this.nodeReset(node));
      for (let instance = 0; instance < spec.instances; instance++) {
        for (const node of targets) this.pools.push(new Pool(spec.pool.maxOpen, spec.pool.maxIdle, spec.pool.pipelining, host, host.table(instance, node)));
      }
    }
    this.maxOpenEver = spec.pool.maxOpen;
    this.markDown = spec.markDown ?? null;
    this.hedge = spec.hedge ? new HedgeDelay(spec.hedge.after, spec.hedge.percentile) : null;
    this.connectsFree = spec.pool.connectCost === 0;
    this.hotKeys = spec.hotKeyCache
      ? new HotKeyCache(spec.instances, spec.hotKeyCache, new Rng(deriveSeed(ctx.seed, `model:clientGroup:${name}:hotKeys`)), firstNamedKey, namedKeyEnd)
      : null;
    const pairs = this.markDown === null ? 0 : spec.instances * targets.length;
    this.sharedView = this.markDown?.view === 'shared';
    this.consecutiveFailures = new Int32Array(pairs);
    this.deadUntilUs = new Float64Array(this.sharedView ? targets.length : pairs);
    const calls = ctx.calls.items;
    this.checkoutDeadlines =
      this.pooled && Number.isFinite(spec.pool.checkoutTimeout)
        ? new DeadlineQueue(ctx.sim, spec.pool.checkoutTimeout, {
            isLive: (id, gen) => calls[id]!.gen === gen && calls[id]!.state === CALL_WAITING,
            expire: (id) => this.checkoutExpired(calls[id]!),
          })
        : null;
    this.replyDeadlines = Number.isFinite(spec.timeout)
      ? new DeadlineQueue(ctx.sim, spec.timeout, {
          isLive: (id, gen) => calls[id]!.gen === gen && calls[id]!.state === CALL_SENT,
          expire: (id) => this.replyExpired(calls[id]!),
        })
      : null;
  }

  /**
   * How `instance` holds `node` now, in its own view or the shared one (always live without
   * markDown): dead, live, or back — live again for the first time since its mark-down lapsed,
   * reported once per mark-down (the moment the view takes the node back).
   */
  viewOf(instance: number, node: number): NodeView {
    if (this.markDown === null) return VIEW_LIVE;
    const slot = this.targetSlot[node]!;
    if (slot < 0) return VIEW_LIVE;
    const at = this.sharedView ? slot : instance * this.targetCount + slot;
    const until = this.deadUntilUs[at]!;
    if (until > this.ctx.sim.nowUs) return VIEW_DEAD;
    if (until === 0) return VIEW_LIVE;
    this.deadUntilUs[at] = 0;
    return VIEW_BACK;
  }

  /** (instance, node) pairs marked dead right now (with a shared view, a dead node counts for every instance). */
  markedDownNow(): number {
    let n = 0;
    const now = this.ctx.sim.nowUs;
    for (let i = 0; i < this.deadUntilUs.length; i++) if (this.deadUntilUs[i]! > now) n++;
    return this.sharedView ? n * this.instances : n;
  }

  /** An operator changes every pool's max connections (0 switches the calls off). */
  setMaxOpen(maxOpen: number): void {
    for (const pool of this.pools) pool.maxOpen = maxOpen;
    this.maxOpenEver = Math.max(this.maxOpenEver, maxOpen);
  }

  /**
   * The largest maxOpen the pools had during the run (the bound on open connections: lowering the
   * max does not close connections in use, and waiters already queued still get released ones).
   */
  maxOpenEver: number;

  /** Points `call` at `node` through this group: instance by user request, pool by (instance, node). */
  bind(call: Call, node: number): void {
    const slot = this.targetSlot[node]!;
    if (slot < 0) throw new Error(`model bug: client group ${this.name} has no pool for node ${node}`);
    call.group = this;
    call.node = node;
    call.instance = call.userSeq % this.instances;
    call.pool = call.instance * this.targetCount + slot;
    call.attempt = 1;
    call.epoch = this.epoch;
  }

  /**
   * The owning process died: its sockets are closed by the kernel (an active close, so every open
   * connection's port goes to TIME_WAIT on the host, which outlives the process), waiters vanish,
   * and calls still out are orphans — dropped without a word to their (dead) parent when their
   * next event arrives.
   */
  processRestarted(): void {
    this.epoch++;
    const calls = this.ctx.calls.items;
    for (const pool of this.pools) {
      while (pool.waiters.size > 0) {
        const call = calls[pool.waiters.popFront()]!;
        const gen = pool.waiters.popFront();
        if (call.gen === gen && call.state === CALL_WAITING) {
          this.stats.waiting--;
          this.ctx.freeCall(call);
        }
      }
      this.ctx.totals.idle -= pool.idle;
      pool.idle = 0;
      pool.spare = 0;
      while (pool.open > 0) this.close(pool);
    }
  }

  /** True (and the call is freed) when the call belongs to a process that has since restarted. */
  private orphaned(call: Call): boolean {
    if (call.epoch === this.epoch) return false;
    this.ctx.freeCall(call);
    return true;
  }

  /** Starts an attempt: an idle connection, else a new one, else a FIFO wait (bounded by checkoutTimeout). */
  start(call: Call): void {
    if (this.pooled && call.plan?.optional === true && unavailable(this.pools[call.pool]!)) return this.skipOptional(call);
    this.stats.attempts++;
    call.connState = DIAL_ACCEPTED;
    if (!this.pooled) return this.send(call);
    const pool = this.pools[call.pool]!;
    if (pool.maxOpen === 0) return this.attemptFailed(call, POOL_DISABLED);
    if (pool.spare > 0) {
      // Pipelining: another request on a connection that has a free slot.
      pool.spare--;
      return this.send(call);
    }
    if (pool.idle > 0) {
      pool.idle--;
      this.ctx.totals.idle--;
      return this.send(call);
    }
    if (pool.open < pool.maxOpen) return this.dial(call, pool);
    call.state = CALL_WAITING;
    pool.waiters.pushBack(call.id);
    pool.waiters.pushBack(call.gen);
    if (++this.stats.waiting > this.stats.waitingHighWater) this.stats.waitingHighWater = this.stats.waiting;
    this.checkoutDeadlines?.push(call.id, call.gen);
  }

  /** An optional dependency that is switched off or has no connection free: the request goes on without it. */
  private skipOptional(call: Call): void {
    this.stats.optionalSkipped++;
    this.ctx.flow.settle(call, 0);
  }

  handle(code: number, callId: number): void {
    const call = this.ctx.calls.items[callId]!;
    // A hedge timer may outlive its attempt, and the record may belong to another group by now.
    if (code === EV_HEDGE) return this.hedgeDue(call);
    if (this.orphaned(call)) return;
    if (code === EV_CONNECTED) this.send(call);
    else if (code === EV_BACKOFF_DONE) this.start(call);
  }

  /**
   * An attempt's hedge timer fired. It is this attempt's (same generation, the time it was set
   * for) and the attempt still waits: send the same request again, on a connection free now.
   */
  private hedgeDue(call: Call): void {
    if (call.group !== this || call.epoch !== this.epoch || call.state !== CALL_SENT || call.hedged || call.hedgeAtUs !== this.ctx.sim.nowUs) return;
    // A first request still in an accept queue or behind a dropped SYN is the server's connection
    // problem, not a slow reply: no hedge (and its connection's fd accounting stays exact).
    if (call.connState !== DIAL_ACCEPTED) {
      this.stats.hedgesSkipped++;
      return;
    }
    if (this.pooled && !this.takeFreeConnection(this.pools[call.pool]!, call.node)) {
      this.stats.hedgesSkipped++;
      return;
    }
    call.hedged = true;
    this.stats.hedges++;
    this.ctx.nodes[call.node]!.accept(call, call.node);
  }

  /** A connection for a hedge without waiting: a free pipelining slot, an idle one, or a new one (below maxOpen, no dial time). */
  private takeFreeConnection(pool: Pool, node: number): boolean {
    if (pool.spare > 0) {
      pool.spare--;
      return true;
    }
    if (pool.idle > 0) {
      pool.idle--;
      this.ctx.totals.idle--;
      return true;
    }
    if (pool.open >= pool.maxOpen || !this.connectsFree || !pool.host.canDial(pool.table)) return false;
    // Only a connection the server takes at once: a hedge does not wait in an accept queue.
    if (!this.ctx.serverConns.canAccept(node) || this.ctx.serverConns.dial(node) !== DIAL_ACCEPTED) return false;
    this.openConnection(pool, node);
    return true;
  }

  /** The hedged pair's other request is abandoned: a pipelined slot is given up, a plain connection closed. */
  private dropOther(pool: Pool): void {
    if (pool.depth > 1) this.release(pool);
    else this.closeAndServeWaiters(pool);
  }

  /** A node's reply to a call still waiting for it (checked by the caller). */
  replied(call: Call, reason: number, hit: boolean): void {
    if (this.orphaned(call)) return;
    call.gen++;
    if (call.hedged && this.pooled) this.dropOther(this.pools[call.pool]!);
    if (reason === 0 && this.hedge !== null) this.hedge.observe(this.ctx.sim.nowUs - call.attemptSentAtUs);
    if (this.pooled) this.release(this.pools[call.pool]!);
    if (reason !== 0) return this.attemptFailed(call, reason);
    call.hit = hit;
    if (this.markDown !== null) this.consecutiveFailures[call.pool] = 0;
    if (this.bucket !== null) this.tokens[call.instance] = Math.min(this.bucket.capacity, this.tokens[call.instance]! + this.bucket.perSuccess);
    this.ctx.flow.attemptSucceeded(call);
  }

  private dial(call: Call, pool: Pool): void {
    if (!pool.host.canDial(pool.table)) {
      this.stats.dialErrors++;
      return this.attemptFailed(call, DIAL_ERROR);
    }
    const answer = this.ctx.serverConns.dial(call.node);
    if (answer === DIAL_REFUSED || (answer === DIAL_DROPPED && this.replyDeadlines === null)) {
      // Nothing listens, or the destination's fd table and accept queue are full: refused. A
      // dropped SYN with no timeout to give up on would hang forever; it is refused here instead.
      this.stats.refused++;
      return this.attemptFailed(call, CONNECTION_REFUSED);
    }
    call.connState = answer;
    this.openConnection(pool, call.node);
    if (this.connectCostUs > 0) {
      call.state = CALL_DIALING;
      this.ctx.sim.after(this.connectCostUs, this.handlerId, EV_CONNECTED, call.id);
    } else this.send(call);
  }

  /** A new connection of `pool` to `node` the destination took (ServerConnections.dial): a port on the host. */
  private openConnection(pool: Pool, node: number): void {
    pool.node = node;
    pool.host.opened(pool.table);
    if (++pool.open > pool.openHighWater) pool.openHighWater = pool.open;
    // Its opener takes one slot; the rest are free for pipelining.
    pool.spare += pool.depth - 1;
    this.ctx.totals.open++;
    this.stats.dials++;
  }

  private send(call: Call): void {
    call.state = CALL_SENT;
    call.serverTask = -1;
    call.hedged = false;
    call.attemptSentAtUs = this.ctx.sim.nowUs;
    this.replyDeadlines?.push(call.id, call.gen);
    if (this.hedge !== null && Number.isFinite(this.hedge.us)) {
      call.hedgeAtUs = this.ctx.sim.nowUs + this.hedge.us;
      this.ctx.sim.at(call.hedgeAtUs, this.handlerId, EV_HEDGE, call.id);
    }
    // A dropped SYN: the request never leaves; the timeout decides.
    if (call.connState !== DIAL_DROPPED) this.ctx.nodes[call.node]!.accept(call, call.node);
  }

  /** A connection came back: the oldest live waiter gets it, else it idles, else it is closed. */
  private release(pool: Pool): void {
    if (this.dropStale(pool)) return this.dialForWaiters(pool);
    const waiter = this.nextWaiter(pool);
    if (waiter) return this.send(waiter);
    if (pool.depth > 1) {
      // A slot frees up; a connection with every slot free is idle, and closed beyond maxIdle.
      pool.spare++;
      if (pool.spare >= pool.depth && Math.floor(pool.spare / pool.depth) > pool.maxIdle) {
        pool.spare -= pool.depth;
        this.close(pool);
      }
      return;
    }
    if (pool.idle < pool.maxIdle) {
      pool.idle++;
      this.ctx.totals.idle++;
      return;
    }
    this.close(pool);
  }

  /** A client's active close with nothing pending at the server: TIME_WAIT here, the server frees its fd now. */
  private close(pool: Pool): void {
    if (this.dropStale(pool)) return;
    this.forget(pool);
    pool.host.closed(pool.table);
    this.ctx.serverConns.released(pool.node);
  }

  /**
   * A timed-out attempt's connection is closed (one request per connection). If the request is
   * still in the server (queued, in service, in its accept queue), the server's fd stays until it
   * gets to it; a never-established connection (dropped SYN) frees only its local port.
   */
  private closeTimedOut(pool: Pool, call: Call, gen: number): void {
    if (this.dropStale(pool)) return;
    if (call.connState === DIAL_DROPPED) {
      this.forget(pool);
      return pool.host.reset(pool.table);
    }
    const task = call.serverTask >= 0 ? this.ctx.tasks.items[call.serverTask]! : null;
    if (task === null || task.state === TASK_FREE || task.originCall !== call.id || task.originGen !== gen) return this.close(pool);
    this.forget(pool);
    pool.host.closed(pool.table);
    task.connClosed = true;
  }

  /** Closes one connection the destination reset (no TIME_WAIT, no fd of the server's); false when none. */
  private dropStale(pool: Pool): boolean {
    if (pool.stale === 0) return false;
    pool.stale--;
    this.forget(pool);
    pool.host.reset(pool.table);
    return true;
  }

  private forget(pool: Pool): void {
    pool.open--;
    this.ctx.totals.open--;
    this.stats.closes++;
  }

  /**
   * The process behind `node` died or was restarted: its idle connections here are gone (the port
   * is free: the server closed first), the busy ones are stale — closed when their request ends.
   */
  private nodeReset(node: number): void {
    const slot = this.targetSlot[node]!;
    if (slot < 0) return;
    for (let instance = 0; instance < this.instances; instance++) {
      const pool = this.pools[instance * this.targetCount + slot]!;
      for (; pool.idle > 0; pool.idle--) {
        this.ctx.totals.idle--;
        this.forget(pool);
        pool.host.reset(pool.table);
      }
      pool.spare = 0;
      // Pipelined connections carry several requests each: they are not tracked one by one here
      // (they stay open on the client; the server no longer counts them).
      if (pool.depth === 1) pool.stale = pool.open;
    }
  }

  /** Dials for the oldest waiters while the pool is under maxOpen (a connection was closed). */
  private dialForWaiters(pool: Pool): void {
    while (pool.open < pool.maxOpen) {
      const waiter = this.nextWaiter(pool);
      if (!waiter) break;
      this.dial(waiter, pool);
    }
  }

  /** Pops the oldest waiter that still waits (timed-out ones are skipped), or null. */
  private nextWaiter(pool: Pool): Call | null {
    const calls = this.ctx.calls.items;
    while (pool.waiters.size > 0) {
      const call = calls[pool.waiters.popFront()]!;
      const gen = pool.waiters.popFront();
      if (call.gen === gen && call.state === CALL_WAITING) {
        call.gen++;
        this.stats.waiting--;
        return call;
      }
    }
    return null;
  }

  private replyExpired(call: Call): void {
    if (this.orphaned(call)) return;
    const gen = call.gen;
    call.gen++;
    this.stats.timeouts++;
    // The reply may still come; the client cannot match it any more, so it drops the connection.
    const pool = this.pooled ? this.pools[call.pool]! : null;
    // A hedged attempt holds two requests: both are given up.
    for (let held = call.hedged ? 2 : 1; held > 0 && pool !== null; held--) {
      // Pipelined: the slot is abandoned (its late reply will be discarded), the connection stays.
      if (pool.depth > 1) this.release(pool);
      else {
        // The hedge's twin is closed as if the server had nothing pending on it; the attempt's own
        // connection keeps the server's fd until the server reaches its request.
        if (held === 2) this.close(pool);
        else this.closeTimedOut(pool, call, gen);
        // The closed connection frees a slot under maxOpen: dial for the oldest waiter.
        this.dialForWaiters(pool);
      }
    }
    this.attemptFailed(call, TIMEOUT);
  }

  /** Closes a connection; the slot it frees under maxOpen dials for the oldest waiter. */
  private closeAndServeWaiters(pool: Pool): void {
    this.close(pool);
    this.dialForWaiters(pool);
  }

  private checkoutExpired(call: Call): void {
    if (this.orphaned(call)) return;
    call.gen++;
    this.stats.waiting--;
    this.stats.checkoutTimeouts++;
    this.attemptFailed(call, CHECKOUT_TIMEOUT);
  }

  private attemptFailed(call: Call, reason: number): void {
    const markDown = this.markDown;
    if (markDown !== null && this.pooled && ++this.consecutiveFailures[call.pool]! >= markDown.failures) {
      this.consecutiveFailures[call.pool] = 0;
      this.deadUntilUs[this.sharedView ? call.pool % this.targetCount : call.pool] = this.ctx.sim.nowUs + markDown.duration;
      this.stats.markDowns++;
    }
    if (call.attempt <= this.retryCount && this.takeRetryToken(call.instance)) {
      this.stats.retries++;
      call.state = CALL_BACKOFF;
      this.ctx.sim.after(this.backoffUs(call.attempt), this.handlerId, EV_BACKOFF_DONE, call.id);
      call.attempt++;
      return;
    }
    this.ctx.flow.callFailed(call, reason);
  }

  private takeRetryToken(instance: number): boolean {
    if (this.bucket === null) return true;
    if (this.tokens[instance]! < 1) {
      this.stats.retriesDenied++;
      return false;
    }
    this.tokens[instance]! -= 1;
    return true;
  }

  /** Delay before retry n (1-based): base·2^(n−1) capped at max, with the configured jitter. */
  private backoffUs(retry: number): number {
    const { base, max, jitter } = this.backoff;
    const delay = Math.min(max, base * 2 ** (retry - 1));
    if (jitter === 'none' || delay === 0) return delay;
    const low = jitter === 'equal' ? Math.floor(delay / 2) : 0;
    return low + Math.floor(this.rng.next() * (delay - low + 1));
  }
}

/** Switched off, or every connection busy and no more may open: an optional call would have to wait. */
function unavailable(pool: Pool): boolean {
  return pool.maxOpen === 0 || (pool.spare === 0 && pool.idle === 0 && pool.open >= pool.maxOpen);
}
