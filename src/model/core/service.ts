import type { EventHandler } from '../engine/simulation.ts';
import { IntDeque } from '../engine/int-deque.ts';
import type { Sampler } from '../../schedule/sample.ts';
import type { CallFlow } from './call-flow.ts';
import type { CallPlan } from './call-plan.ts';
import type { ModelContext, ModelNode } from './context.ts';
import { QUEUE_FULL } from './reasons.ts';
import { TASK_QUEUED, TASK_REJECTED, TASK_RUNNING, type Call, type Task } from './records.ts';

const EV_SERVICE_DONE = 1;
const EV_REJECT = 2;

export interface ServiceConfig {
  name: string;
  workers: number;
  queueLimit: number;
  lifo: boolean;
  serviceTime: Sampler;
  itemTime: Sampler | null;
  calls: CallPlan[];
  /** User requests enter here: its finished requests count towards throughput. */
  isEntry: boolean;
}

export class ServiceStats {
  accepted = 0;
  rejected = 0;
  started = 0;
  succeeded = 0;
  failed = 0;
  /** Σ time from arrival to getting a worker, over started requests. */
  queueWaitUs = 0;
  queueHighWater = 0;
  /** Most per-item calls one request had in flight at once (bounded by fanoutLimit). */
  itemsInFlightHighWater = 0;
}

/**
 * A service: `workers` threads in front of a FIFO/LIFO queue. A request holds its worker through
 * serviceTime (+ itemTime per key) and then through its calls, one call entry after another; a
 * per-item entry fans out over the request's keys, at most fanoutLimit in flight. Like errgroup's
 * `Go`, a failed item does not stop the others (the per-key work does not watch a context): every
 * item runs, the worker waits for all of them, and the first failure is the request's reply.
 */
export class ServiceNode implements ModelNode, EventHandler {
  readonly stats = new ServiceStats();
  busy = 0;
  readonly queue = new IntDeque(64);
  private readonly handlerId: number;

  constructor(
    private readonly ctx: ModelContext,
    private readonly flow: CallFlow,
    readonly config: ServiceConfig,
  ) {
    this.handlerId = ctx.sim.register(this);
  }

  get name(): string {
    return this.config.name;
  }

  accept(call: Call): void {
    const task = this.ctx.tasks.alloc();
    task.service = this;
    task.originCall = call.id;
    task.originGen = call.gen;
    task.kind = call.kind;
    task.userSeq = call.userSeq;
    task.reason = 0;
    task.enqueuedAtUs = this.ctx.sim.nowUs;
    // A user request carries its batch; a per-item call carries one key; other calls forward the caller's batch.
    if (call.parent < 0) task.setKeys(call.keys, call.keyCount);
    else if (call.plan!.perItem) {
      task.keys[0] = call.key;
      task.keyCount = 1;
    } else {
      const parent = this.ctx.tasks.items[call.parent]!;
      task.setKeys(parent.keys, parent.keyCount);
    }
    this.stats.accepted++;
    if (this.busy < this.config.workers) return this.start(task);
    if (this.queue.size < this.config.queueLimit) {
      task.state = TASK_QUEUED;
      this.queue.pushBack(task.id);
      if (this.queue.size > this.stats.queueHighWater) this.stats.queueHighWater = this.queue.size;
      return;
    }
    this.stats.accepted--;
    this.stats.rejected++;
    task.state = TASK_REJECTED;
    task.reason = QUEUE_FULL;
    this.ctx.sim.after(0, this.handlerId, EV_REJECT, task.id);
  }

  handle(code: number, taskId: number): void {
    const task = this.ctx.tasks.items[taskId]!;
    if (code === EV_SERVICE_DONE) {
      task.step = -1;
      this.nextStep(task);
    } else if (code === EV_REJECT) {
      this.ctx.flow.reply(task.originCall, task.originGen, task.reason, false);
      this.ctx.freeTask(task);
    }
  }

  /** One item of the current call entry finished. */
  callDone(task: Task, reason: number): void {
    task.inFlight--;
    if (reason !== 0 && task.reason === 0) task.reason = reason;
    this.pump(task);
  }

  private start(task: Task): void {
    const config = this.config;
    const now = this.ctx.sim.nowUs;
    task.state = TASK_RUNNING;
    this.busy++;
    this.stats.started++;
    this.stats.queueWaitUs += now - task.enqueuedAtUs;
    let cpuUs = config.serviceTime();
    if (config.itemTime !== null) for (let i = 0; i < task.keyCount; i++) cpuUs += config.itemTime();
    this.ctx.sim.after(cpuUs, this.handlerId, EV_SERVICE_DONE, task.id);
  }

  /** Moves to the next call entry that applies to the request's kind, or finishes the request. */
  private nextStep(task: Task): void {
    const calls = this.config.calls;
    let step = task.step + 1;
    while (step < calls.length && calls[step]!.kinds !== null && calls[step]!.kinds![task.kind] !== 1) step++;
    task.step = step;
    if (step >= calls.length) return this.finish(task);
    task.itemCount = calls[step]!.perItem ? task.keyCount : 1;
    task.nextItem = 0;
    task.inFlight = 0;
    this.pump(task);
  }

  /**
   * Launches items up to the fan-out limit. A launch can fail synchronously (no port: dial_error)
   * and re-enter here through `callDone`; the re-entrant call only asks the running loop to go on.
   */
  private pump(task: Task): void {
    if (task.pumping) {
      task.repump = true;
      return;
    }
    const plan = this.config.calls[task.step]!;
    task.pumping = true;
    do {
      task.repump = false;
      while (task.nextItem < task.itemCount && task.inFlight < plan.fanoutLimit) {
        const item = task.nextItem++;
        if (++task.inFlight > this.stats.itemsInFlightHighWater) this.stats.itemsInFlightHighWater = task.inFlight;
        this.flow.launch(task, plan, item);
      }
    } while (task.repump);
    task.pumping = false;
    if (task.inFlight > 0 || task.nextItem < task.itemCount) return;
    if (task.reason !== 0) this.finish(task);
    else this.nextStep(task);
  }

  /** Frees the worker (the next queued request takes it) and replies to the caller if it still waits. */
  private finish(task: Task): void {
    this.busy--;
    if (task.reason === 0) this.stats.succeeded++;
    else this.stats.failed++;
    if (this.queue.size > 0) {
      const next = this.config.lifo ? this.queue.popBack() : this.queue.popFront();
      this.start(this.ctx.tasks.items[next]!);
    }
    this.ctx.flow.reply(task.originCall, task.originGen, task.reason, false);
    this.ctx.freeTask(task);
  }
}
