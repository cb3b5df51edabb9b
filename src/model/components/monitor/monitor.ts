import { DeadlineQueue, type DeadlineOwner } from '../../engine/deadline-queue.ts';
import type { EventHandler } from '../../engine/simulation.ts';
import type { Monitor } from '../../../profile/topology/index.ts';
import type { ModelContext } from '../../core/context.ts';
import { CONNECTION_RESET } from '../../core/reasons.ts';
import { TASK_FREE, type Prober } from '../../core/records.ts';
import { DIAL_ACCEPTED, DIAL_BACKLOG } from '../../core/server-connections.ts';
import type { CacheNode } from '../cache/cache.ts';

const EV_ROUND = 1;
const NOT_CONNECTED = 0;
const CONNECTED = 1;
/** Dialled while the shard was at its fd limit: the connection waits in the accept queue. */
const IN_BACKLOG = 2;

export class MonitorStats {
  probes = 0;
  failedProbes = 0;
  /** Probes that could not even connect (refused, or the SYN dropped at a full backlog). */
  connectFailures = 0;
  restarts = 0;
}

/**
 * A health-check monitor over one cache's shards: a probe per shard every period, through a
 * connection dialled for it and closed after it (`connection: new`, competing for fds and the
 * accept queue with every client) or through one kept open (`reuse`: dialled again only after a
 * failure). `failures` failed probes in a row restart the shard. A restart is the 2014-01
 * feedback: the shard comes back empty and every client reconnects.
 */
export class HealthMonitor implements EventHandler, Prober, DeadlineOwner {
  readonly stats = new MonitorStats();
  private readonly connection: Uint8Array;
  private readonly outstanding: Uint8Array;
  private readonly seq: Int32Array;
  private readonly taskOf: Int32Array;
  private readonly failures: Int32Array;
  private readonly pausedUntilUs: Float64Array;
  private readonly timeouts: DeadlineQueue;
  private readonly handlerId: number;
  /** Every probe dials its own connection (`connection: new`). */
  private readonly fresh: boolean;

  constructor(
    private readonly ctx: ModelContext,
    readonly name: string,
    private readonly spec: Monitor,
    private readonly cache: CacheNode,
  ) {
    const slots = cache.slots;
    this.connection = new Uint8Array(slots);
    this.outstanding = new Uint8Array(slots);
    this.seq = new Int32Array(slots);
    this.taskOf = new Int32Array(slots).fill(-1);
    this.failures = new Int32Array(slots);
    this.pausedUntilUs = new Float64Array(slots);
    this.handlerId = ctx.sim.register(this);
    this.fresh = spec.connection === 'new';
    this.timeouts = new DeadlineQueue(ctx.sim, spec.timeout, this);
    ctx.serverConns.onReset((node) => {
      const shard = node - cache.nodeBase;
      if (shard >= 0 && shard < slots) this.connection[shard] = NOT_CONNECTED;
    });
    ctx.sim.at(spec.every, this.handlerId, EV_ROUND, 0);
  }

  /** Shards currently held as failing (at least one failed probe since the last success). */
  failingNow(): number {
    let n = 0;
    for (let s = 0; s < this.failures.length; s++) if (this.failures[s]! > 0) n++;
    return n;
  }

  handle(): void {
    const now = this.ctx.sim.nowUs;
    for (let shard = 0; shard < this.cache.slots; shard++) {
      if (this.outstanding[shard] === 1 || now < this.pausedUntilUs[shard]! || !this.cache.slotInUse(shard)) continue;
      this.probe(shard);
    }
    this.ctx.sim.after(this.spec.every, this.handlerId, EV_ROUND, 0);
  }

  probeDone(shard: number, seq: number, reason: number): void {
    if (this.outstanding[shard] !== 1 || this.seq[shard] !== seq) return;
    this.outstanding[shard] = 0;
    // Reset: the process died with the connection. Any other answer came over an accepted
    // connection that is still open (a blip refuses requests, not connections).
    this.connection[shard] = reason === CONNECTION_RESET ? NOT_CONNECTED : CONNECTED;
    if (this.fresh) this.hangUp(shard);
    if (reason === 0) this.failures[shard] = 0;
    else this.failed(shard);
  }

  /** A probe's own connection is closed after it: the shard frees the fd at once (nothing is pending on it). */
  private hangUp(shard: number): void {
    if (this.connection[shard] !== CONNECTED) return;
    this.connection[shard] = NOT_CONNECTED;
    this.ctx.serverConns.released(this.cache.nodeBase + shard);
  }

  isLive(shard: number, seq: number): boolean {
    return this.outstanding[shard] === 1 && this.seq[shard] === seq;
  }

  /** No reply in time: the monitor closes the connection, like any client; the shard frees the fd once it gets to the probe. */
  expire(shard: number): void {
    this.outstanding[shard] = 0;
    const task = this.ctx.tasks.items[this.taskOf[shard]!];
    const pending = task !== undefined && task.state !== TASK_FREE && task.prober === this && task.originGen === this.seq[shard];
    if (pending) task.connClosed = true;
    else if (this.connection[shard] === CONNECTED) this.ctx.serverConns.released(this.cache.nodeBase + shard);
    this.connection[shard] = NOT_CONNECTED;
    this.failed(shard);
  }

  private probe(shard: number): void {
    this.stats.probes++;
    if (this.connection[shard] === NOT_CONNECTED) {
      const answer = this.ctx.serverConns.dial(this.cache.nodeBase + shard);
      if (answer !== DIAL_ACCEPTED && answer !== DIAL_BACKLOG) {
        this.stats.connectFailures++;
        return this.failed(shard);
      }
      this.connection[shard] = answer === DIAL_ACCEPTED ? CONNECTED : IN_BACKLOG;
    }
    const seq = ++this.seq[shard]!;
    this.outstanding[shard] = 1;
    this.timeouts.push(shard, seq);
    this.taskOf[shard] = this.cache.probe(shard, this, seq, this.connection[shard] === IN_BACKLOG ? DIAL_BACKLOG : DIAL_ACCEPTED);
  }

  private failed(shard: number): void {
    this.stats.failedProbes++;
    if (++this.failures[shard]! < this.spec.failures) return;
    this.failures[shard] = 0;
    this.stats.restarts++;
    this.pausedUntilUs[shard] = this.ctx.sim.nowUs + this.spec.restartTime;
    this.cache.restartShard(shard, this.spec.restartTime);
  }
}
