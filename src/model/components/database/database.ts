import type { EventHandler } from '../../engine/simulation.ts';
import { IntDeque } from '../../engine/int-deque.ts';
import type { Sampler } from '../../../schedule/sample.ts';
import type { ModelContext, ModelNode } from '../../core/context.ts';
import { QUEUE_FULL, RATE_LIMITED } from '../../core/reasons.ts';
import { STAGE_MISS, STAGE_PRIMARY, TASK_QUEUED, TASK_REJECTED, TASK_RUNNING, type Call, type Task } from '../../core/records.ts';

const EV_OP_DONE = 1;
const EV_REJECT = 2;

export class DatabaseStats {
  completed = 0;
  rejected = 0;
  /** Σ service latency (after the slowdown factor), µs. */
  latencyUs = 0;
  outstandingHighWater = 0;
  /** Turned away by the quota. */
  rateLimited = 0;
}

/**
 * A database with `concurrency` operations in service at once and a FIFO queue behind them. An
 * operation starting while `outstanding` operations are in the database (in service + queued,
 * itself included) takes latency × (1 + slowdown × max(0, outstanding/concurrency − 1)): linear
 * in the backlog, like GC or lock contention growing with queued work. With slowdown > 0 a backlog
 * lowers capacity, the loop behind metastable database overloads.
 */
export class DatabaseNode implements ModelNode, EventHandler {
  readonly stats = new DatabaseStats();
  inService = 0;
  /** Injected latency added to every operation (timeline `latency`). */
  extraLatencyUs = 0;
  readonly queue = new IntDeque(64);
  private readonly handlerId: number;

  constructor(
    private readonly ctx: ModelContext,
    readonly name: string,
    private readonly concurrency: number,
    private readonly queueLimit: number,
    private readonly slowdown: number,
    private readonly latency: Sampler,
    /** Quota, operations/s (Infinity: none). */
    private readonly rateLimit = Number.POSITIVE_INFINITY,
  ) {
    this.handlerId = ctx.sim.register(this);
    this.burst = Math.max(1, rateLimit / 10);
    this.tokens = this.burst;
  }

  private readonly burst: number;
  private tokens: number;
  private tokensAtUs = 0;

  /** Takes a quota token if one is left (the bucket refills continuously at rateLimit). */
  private admitted(): boolean {
    if (this.rateLimit === Number.POSITIVE_INFINITY) return true;
    const now = this.ctx.sim.nowUs;
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.tokensAtUs) * this.rateLimit) / 1e6);
    this.tokensAtUs = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Operations in the database: in service plus queued. */
  get outstanding(): number {
    return this.inService + this.queue.size;
  }

  accept(call: Call): void {
    const task = this.ctx.tasks.alloc();
    task.originCall = call.id;
    task.originGen = call.gen;
    task.reason = 0;
    task.key = call.key;
    task.isSet = call.plan?.write === true && call.stage === STAGE_PRIMARY;
    const plan = call.plan;
    task.fillCache = plan !== null && call.stage === STAGE_MISS && plan.onMiss?.readThrough ? plan.cache : null;
    if (!this.admitted()) {
      this.stats.rateLimited++;
      task.state = TASK_REJECTED;
      task.reason = RATE_LIMITED;
      this.ctx.sim.after(0, this.handlerId, EV_REJECT, task.id);
      return;
    }
    if (this.inService < this.concurrency) this.start(task);
    else if (this.queue.size < this.queueLimit) {
      task.state = TASK_QUEUED;
      this.queue.pushBack(task.id);
    } else {
      this.stats.rejected++;
      task.state = TASK_REJECTED;
      task.reason = QUEUE_FULL;
      this.ctx.sim.after(0, this.handlerId, EV_REJECT, task.id);
      return;
    }
    if (this.outstanding > this.stats.outstandingHighWater) this.stats.outstandingHighWater = this.outstanding;
  }

  handle(code: number, taskId: number): void {
    const task = this.ctx.tasks.items[taskId]!;
    if (code === EV_OP_DONE) {
      this.inService--;
      this.stats.completed++;
      if (task.isSet) this.ctx.keyWritten(task.key);
      if (task.fillCache !== null) task.fillCache.fillThrough(task.key);
      if (this.queue.size > 0) this.start(this.ctx.tasks.items[this.queue.popFront()]!);
    }
    this.ctx.flow.reply(task.originCall, task.originGen, task.reason, false);
    this.ctx.freeTask(task);
  }

  private start(task: Task): void {
    task.state = TASK_RUNNING;
    this.inService++;
    const backlog = this.outstanding / this.concurrency - 1;
    const latencyUs = (backlog > 0 && this.slowdown > 0 ? Math.round(this.latency() * (1 + this.slowdown * backlog)) : this.latency()) + this.extraLatencyUs;
    this.stats.latencyUs += latencyUs;
    this.ctx.sim.after(latencyUs, this.handlerId, EV_OP_DONE, task.id);
  }
}
