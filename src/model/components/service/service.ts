import type { EventHandler } from '../../engine/simulation.ts';
import { IntDeque } from '../../engine/int-deque.ts';
import type { Sampler } from '../../../schedule/sample.ts';
import type { CallFlow } from '../../core/call-flow.ts';
import type { CallPlan } from '../../core/records.ts';
import type { ClientGroupModel } from '../client-group/client-group.ts';
import type { ModelContext, ModelNode } from '../../core/context.ts';
import type { ProcessState } from './process.ts';
import { CONNECTION_REFUSED, CONNECTION_RESET, EXPIRED, QUEUE_FULL } from '../../core/reasons.ts';
import { TASK_QUEUED, TASK_REJECTED, TASK_RUNNING, type Call, type Task } from '../../core/records.ts';

const EV_SERVICE_DONE = 1;
const EV_REJECT = 2;
const EV_LOG_WRITTEN = 3;
const EV_OOM = 4;
const EV_RESTARTED = 5;

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
  /** Service time added per request in the service when one starts (latency grows with concurrency); 0 = none. */
  latencyPerInFlightUs: number;
  /** Cores for serviceTime; Infinity = no CPU queue. */
  cpus: number;
  /** Memory, GC, threads and error logging; null = an ideal process that never dies. */
  process: ProcessState | null;
  restartDelayUs: number;
  /** Queue wait after which a request is dropped at dequeue; Infinity = never. */
  dropAfterUs: number;
  /** Client groups whose pools live in this process (the `via` of its calls): reset by a restart. */
  ownGroups: ClientGroupModel[];
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
  /** Requests refused while the process was down, or lost when it died. */
  refused = 0;
  reset = 0;
  /** Dropped at dequeue after waiting longer than dropAfter. */
  expired = 0;
  /** Times the process came back (after an OOM kill or an operator's restart). */
  restarts = 0;
}

/**
 * A service: `workers` threads in front of a FIFO/LIFO queue. A request holds its worker through
 * serviceTime (+ itemTime per key, on one of `cpus` cores, stretched by the GC share) and then
 * through its calls, one call entry after another; a per-item entry fans out over the request's
 * keys, at most fanoutLimit in flight. Like errgroup's `Go`, a failed item does not stop the others:
 * every item runs, the worker waits for all of them, and the first failure is the request's reply.
 *
 * With a process model, a failed call may first write a log line (blocking, serialised: each
 * blocked writer is an OS thread), memory follows requests, calls and threads, and going over the
 * limit kills the process: queued and running requests fail with `connection_reset`, its pools'
 * connections close into the host's TIME_WAIT, and for `restartDelay` new requests are refused.
 */
export class ServiceNode implements ModelNode, EventHandler {
  readonly stats = new ServiceStats();
  busy = 0;
  readonly queue = new IntDeque(64);
  /** Requests with a worker waiting for a core. */
  readonly cpuQueue = new IntDeque(64);
  cpuBusy = 0;
  /** Incremented by each restart; tasks of an older epoch are dead. */
  epoch = 0;
  down = false;
  /** CPU-time multiplier (a capacity dip). */
  slowdown = 1;
  /** Injected latency added to every request's service time (timeline `latency`). */
  extraLatencyUs = 0;
  /** Most queued and busy since the previous gauge sample (a peak between samples still shows). */
  queuePeak = 0;
  busyPeak = 0;
  private oomPending = false;
  private readonly handlerId: number;
  private readonly process: ProcessState | null;

  constructor(
    private readonly ctx: ModelContext,
    private readonly flow: CallFlow,
    readonly config: ServiceConfig,
  ) {
    this.handlerId = ctx.sim.register(this);
    this.process = config.process;
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
    task.ttlUs = call.ttlUs;
    task.userSeq = call.userSeq;
    task.reason = 0;
    task.epoch = this.epoch;
    task.pendingLogs = 0;
    task.onCpu = false;
    task.enqueuedAtUs = this.ctx.sim.nowUs;
    if (this.down) {
      this.stats.refused++;
      return this.reject(task, CONNECTION_REFUSED);
    }
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
    if (this.busy < this.config.workers) {
      this.entered();
      return this.start(task);
    }
    if (this.queue.size < this.config.queueLimit) {
      task.state = TASK_QUEUED;
      this.queue.pushBack(task.id);
      if (this.queue.size > this.stats.queueHighWater) this.stats.queueHighWater = this.queue.size;
      if (this.queue.size > this.queuePeak) this.queuePeak = this.queue.size;
      return this.entered();
    }
    this.stats.accepted--;
    this.stats.rejected++;
    this.reject(task, QUEUE_FULL);
  }

  handle(code: number, taskId: number): void {
    if (code === EV_OOM) {
      this.oomPending = false;
      this.process!.stats.oomKills++;
      return this.kill(this.config.restartDelayUs);
    }
    if (code === EV_RESTARTED) {
      this.down = false;
      this.stats.restarts++;
      if (this.process !== null) this.process.stats.restarts++;
      return;
    }
    const task = this.ctx.tasks.items[taskId]!;
    if (code === EV_SERVICE_DONE) {
      task.onCpu = false;
      if (task.epoch !== this.epoch) return this.freeIfIdle(task);
      this.cpuBusy--;
      if (this.cpuQueue.size > 0) this.runOnCpu(this.ctx.tasks.items[this.cpuQueue.popFront()]!);
      task.step = -1;
      this.nextStep(task);
    } else if (code === EV_REJECT) {
      this.ctx.flow.reply(task.originCall, task.originGen, task.reason, false);
      this.ctx.freeTask(task);
    } else if (code === EV_LOG_WRITTEN) {
      task.pendingLogs--;
      if (task.epoch !== this.epoch) return this.freeIfIdle(task);
      this.process!.blockedWriters--;
      this.itemFinished(task);
    }
  }

  /** One item of the current call entry finished (its reply, or its failure, reached the caller). */
  callDone(task: Task, reason: number): void {
    const process = this.process;
    if (process !== null) process.calls--;
    if (reason !== 0) {
      if (task.reason === 0) task.reason = reason;
      if (process?.logsThisFailure()) {
        // The goroutine writes its error line before it returns: the item is done when the write is.
        task.pendingLogs++;
        this.ctx.sim.at(process.startWrite(this.ctx.sim.nowUs), this.handlerId, EV_LOG_WRITTEN, task.id);
        this.checkMemory();
        return;
      }
    }
    this.itemFinished(task);
  }

  private itemFinished(task: Task): void {
    task.inFlight--;
    this.pump(task);
  }

  private reject(task: Task, reason: number): void {
    task.state = TASK_REJECTED;
    task.reason = reason;
    this.ctx.sim.after(0, this.handlerId, EV_REJECT, task.id);
  }

  private entered(): void {
    if (this.process === null) return;
    this.process.requests++;
    this.checkMemory();
  }

  private start(task: Task): void {
    const now = this.ctx.sim.nowUs;
    task.state = TASK_RUNNING;
    if (++this.busy > this.busyPeak) this.busyPeak = this.busy;
    this.stats.started++;
    this.stats.queueWaitUs += now - task.enqueuedAtUs;
    task.onCpu = true;
    if (this.cpuBusy < this.config.cpus) this.runOnCpu(task);
    else this.cpuQueue.pushBack(task.id);
  }

  private runOnCpu(task: Task): void {
    const config = this.config;
    this.cpuBusy++;
    let cpuUs = config.serviceTime();
    if (config.itemTime !== null) for (let i = 0; i < task.keyCount; i++) cpuUs += config.itemTime();
    if (this.slowdown !== 1) cpuUs *= this.slowdown;
    cpuUs += this.extraLatencyUs;
    // Contention: each request in the service now (running or queued) slows this one down.
    if (config.latencyPerInFlightUs > 0) cpuUs += config.latencyPerInFlightUs * (this.busy + this.queue.size);
    if (this.process !== null) {
      const gc = this.process.gcShare();
      if (gc > 0) cpuUs = Math.round(cpuUs / (1 - gc));
    }
    this.ctx.sim.after(Math.round(cpuUs), this.handlerId, EV_SERVICE_DONE, task.id);
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
      const limit = plan.perItem ? plan.group.fanoutLimit : 1;
      while (task.nextItem < task.itemCount && task.inFlight < limit && task.epoch === this.epoch) {
        const item = task.nextItem++;
        if (++task.inFlight > this.stats.itemsInFlightHighWater) this.stats.itemsInFlightHighWater = task.inFlight;
        if (this.process !== null) this.process.calls++;
        this.flow.launch(task, plan, item);
      }
    } while (task.repump);
    task.pumping = false;
    if (task.epoch !== this.epoch) return this.freeIfIdle(task);
    this.checkMemory();
    if (task.inFlight > 0 || task.nextItem < task.itemCount) return;
    if (task.reason !== 0) this.finish(task);
    else this.nextStep(task);
  }

  /** Frees the worker (the next queued request takes it) and replies to the caller if it still waits. */
  private finish(task: Task): void {
    this.busy--;
    if (this.process !== null) this.process.requests--;
    if (task.reason === 0) this.stats.succeeded++;
    else this.stats.failed++;
    this.startNextQueued();
    this.ctx.flow.reply(task.originCall, task.originGen, task.reason, false);
    this.ctx.freeTask(task);
  }

  /** Gives the freed worker to the next queued request, dropping those that waited past dropAfter. */
  private startNextQueued(): void {
    const now = this.ctx.sim.nowUs;
    while (this.queue.size > 0) {
      const next = this.ctx.tasks.items[this.config.lifo ? this.queue.popBack() : this.queue.popFront()]!;
      if (now - next.enqueuedAtUs > this.config.dropAfterUs) {
        this.stats.expired++;
        if (this.process !== null) this.process.requests--;
        this.reject(next, EXPIRED);
        continue;
      }
      return this.start(next);
    }
  }

  private checkMemory(): void {
    if (this.oomPending || this.down || this.process === null || !this.process.overLimit()) return;
    // Killed in its own event, not inside whichever call pushed memory over the limit.
    this.oomPending = true;
    this.ctx.sim.after(0, this.handlerId, EV_OOM, 0);
  }

  /** An operator restarts the process (timeline `restart`): the same as a kill, then up after `downForUs`. */
  restart(downForUs: number): void {
    if (!this.down) this.kill(downForUs);
  }

  /**
   * The process dies (OOM killer, or an operator's restart): every request in it fails with
   * `connection_reset`, its pools are gone (their connections close into the host's TIME_WAIT,
   * which survives), and the port is refused until it is back. Tasks with an event still pending
   * are freed by that event.
   */
  private kill(downForUs: number): void {
    this.down = true;
    this.epoch++;
    this.process?.reset(this.ctx.sim.nowUs);
    // Requests waiting for a core have no event pending: they can be freed at once.
    for (let i = 0; i < this.cpuQueue.size; i++) this.ctx.tasks.items[this.cpuQueue.at(i)]!.onCpu = false;
    for (const task of this.ctx.tasks.items) {
      if (task.service !== this || task.epoch === this.epoch) continue;
      if (task.state !== TASK_RUNNING && task.state !== TASK_QUEUED) continue;
      this.stats.reset++;
      this.stats.failed++;
      this.ctx.flow.reply(task.originCall, task.originGen, CONNECTION_RESET, false);
      task.state = TASK_REJECTED; // no longer counted as queued or running
      this.freeIfIdle(task);
    }
    while (this.queue.size > 0) this.queue.popFront();
    while (this.cpuQueue.size > 0) this.cpuQueue.popFront();
    this.busy = 0;
    this.cpuBusy = 0;
    for (const group of this.config.ownGroups) group.processRestarted();
    this.ctx.sim.after(downForUs, this.handlerId, EV_RESTARTED, 0);
  }

  /** A dead task goes back to the pool once no event refers to it any more. */
  private freeIfIdle(task: Task): void {
    if (task.onCpu || task.pendingLogs > 0 || task.pumping) return;
    this.ctx.freeTask(task);
  }
}
