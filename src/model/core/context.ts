import type { Simulation } from '../engine/simulation.ts';
import type { FdHolder, ServerConnections } from './server-connections.ts';
import { Call, CALL_FREE, RecordPool, Task, TASK_FREE } from './records.ts';

/** A destination of calls: a service, one cache shard, or a database. */
export interface ModelNode extends FdHolder {
  /** Takes the call's request. Never replies synchronously: a rejection is a reply event. */
  accept(call: Call, node: number): void;
}

/** What the model tells its driver. */
export interface ModelListener {
  /** A user request finished (reason 0 = success). Read what you need from `call`; it is reused afterwards. */
  userCompleted(call: Call, reason: number): void;
}

/** Connection counts across every pool and host, kept up to date for the gauges. */
export interface ConnectionTotals {
  open: number;
  idle: number;
  timeWait: number;
}

/** Settles calls whose attempt ended; implemented by `CallFlow`. */
export interface CallSettler {
  attemptSucceeded(call: Call): void;
  callFailed(call: Call, reason: number): void;
  /** Hands a finished call to its parent (reason 0: success) and frees it. */
  settle(call: Call, reason: number): void;
  /** Delivers a node's reply to the call that sent the request, unless that call gave up. */
  reply(callId: number, gen: number, reason: number, hit: boolean): void;
}

/** State shared by every component of one model run. */
export class ModelContext {
  readonly calls = new RecordPool((id) => new Call(id));
  readonly tasks = new RecordPool((id) => new Task(id));
  readonly nodes: ModelNode[] = [];
  readonly totals: ConnectionTotals = { open: 0, idle: 0, timeWait: 0 };
  /** Open connections per destination node (every client together), against its connection limit. */
  connections = new Int32Array(0);
  connectionLimit = new Float64Array(0);
  /** Fds and accept queues of every node, over `connections` and `connectionLimit`; set by the wiring. */
  serverConns: ServerConnections = undefined as unknown as ServerConnections;
  /** Newest version of every key (written by database writes), when some cache tracks copies. */
  keyVersion = new Uint32Array(0);
  /** When each key's newest version, and the one before it, were written (µs): how long a copy has been out of date. */
  keyWrittenAtUs = new Float64Array(0);
  keyPrevWrittenAtUs = new Float64Array(0);
  /** Set once by `buildModel` (the flow needs the context first). */
  flow: CallSettler = undefined as unknown as CallSettler;

  constructor(
    readonly sim: Simulation,
    readonly seed: number,
    readonly listener: ModelListener,
  ) {}

  /** A database write made a new version of `key` (tracked only when some cache keeps copies). */
  keyWritten(key: number): void {
    if (this.keyVersion.length === 0) return;
    this.keyVersion[key]!++;
    this.keyPrevWrittenAtUs[key] = this.keyWrittenAtUs[key]!;
    this.keyWrittenAtUs[key] = this.sim.nowUs;
  }

  /**
   * How long a copy at `version` (older than the newest) has been out of date at least: since the
   * write that replaced it (the newest write when it is one version behind; the one before when it
   * is further behind).
   */
  staleForUs(key: number, version: number): number {
    const newest = this.keyVersion[key]!;
    return this.sim.nowUs - (version === newest - 1 ? this.keyWrittenAtUs[key]! : this.keyPrevWrittenAtUs[key]!);
  }

  freeCall(call: Call): void {
    call.gen++;
    call.state = CALL_FREE;
    call.plan = null;
    this.calls.release(call);
  }

  freeTask(task: Task): void {
    task.state = TASK_FREE;
    task.service = null;
    task.fillCache = null;
    task.connClosed = false;
    task.prober = null;
    this.tasks.release(task);
  }
}
