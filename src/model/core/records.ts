import type { ClientGroup } from '../../profile/topology/index.ts';
import type { NodeView } from './view.ts';
import { OP_GET } from './ops.ts';

/*
 * The records of the call flow and what they point through. A call, its plan, the caller that sends
 * it and the keyed destination it may go to name each other, so they are declared together here,
 * as interfaces the components implement (a client group is a Caller, a cache a KeyedDestination,
 * a service a TaskOwner): the core never names a component.
 */

/** The side that sends a call: a client group, as the call flow sees it. */
export interface Caller {
  readonly name: string;
  readonly instances: number;
  /** Items of one per-item call in flight at most (an operator's `set` may change it). */
  readonly fanoutLimit: number;
  readonly stats: CallerStats;
  /** Client-side ejection of failing nodes; null when the group ejects none. */
  readonly markDown: NonNullable<ClientGroup['markDown']> | null;
  /** Keys the group's instances answer from their own memory; null without client-side hot-key caching. */
  readonly hotKeys: LocalKeys | null;
  /** How instance `instance` sees `node`: live, held dead, or back from a mark-down just now. */
  viewOf(instance: number, node: number): NodeView;
  /** Points the call at `node` through this group (before each attempt sequence and each look-aside stage). */
  bind(call: Call, node: number): void;
  start(call: Call): void;
  /** The destination's reply to the call's current attempt. */
  replied(call: Call, reason: number, hit: boolean): void;
}

/** The caller's counters the call flow moves (the caller keeps others of its own). */
export interface CallerStats {
  missedUnasked: number;
  noLiveNode: number;
  routedAround: number;
  fillsSkipped: number;
  optionalFailed: number;
}

/** Keys answered from a client instance's own memory, promoted by how often that instance asks for them. */
export interface LocalKeys {
  servesLocally(instance: number, key: number, nowUs: number): boolean;
  observe(instance: number, key: number, nowUs: number): void;
}

/** A destination whose node depends on the key: a cache's shards. */
export interface KeyedDestination {
  nodeOfKey(key: number): number;
  /** The key's node, or the next one on the ring that instance `instance` of `caller` sees live. */
  nodeOfKeyAvoiding(key: number, caller: Caller, instance: number): number;
  /** A caller's mark-down of `node` lapsed: it is tried again. */
  markDownLapsed(node: number): void;
  /** A write skipped the key's node (held dead): the copy there is left behind. */
  writeBypassed(key: number, node: number): void;
  /** A read-through database read completed: the destination stores the key. */
  fillThrough(key: number): void;
}

/** The service request a task is: it hears when each of its calls is done. */
export interface TaskOwner {
  callDone(task: Task, reason: number): void;
}

/** One entry of a service's `calls`, resolved to runtime objects at build time. */
export interface CallPlan {
  group: Caller;
  /** Set when the call goes to a keyed destination (a cache): the node then depends on the key. */
  cache: KeyedDestination | null;
  /** Destination node for service and database calls. */
  node: number;
  /** kinds[k] = 1 when requests of kind k make the call; null = every kind. */
  kinds: Uint8Array | null;
  /** One call per key, at most the group's (mutable) fanoutLimit in flight. */
  perItem: boolean;
  onMiss: { group: Caller; node: number; readThrough: boolean } | null;
  fill: boolean;
  /** A write: a database makes a new version of the key; a cache sets it. */
  write: boolean;
  /** Skipped when its pool is disabled or exhausted; its failures do not fail the request. */
  optional: boolean;
  /** Cache calls: the memcached op (ops.ts) per request kind; null for other destinations. */
  ops: Uint8Array | null;
}

/** The destination node of a call for `key`. */
export function planNode(plan: CallPlan, key: number): number {
  return plan.cache === null ? plan.node : plan.cache.nodeOfKey(key);
}

/** Receives the outcome of a health-check probe a server task carried. */
export interface Prober {
  probeDone(shard: number, seq: number, reason: number): void;
}

export const CALL_FREE = 0;
/** Waiting in the pool's FIFO for a connection. */
export const CALL_WAITING = 1;
/** A new connection is being set up (connectCost). */
export const CALL_DIALING = 2;
/** Request sent on a connection; waiting for the reply or the timeout. */
export const CALL_SENT = 3;
/** Between attempts. */
export const CALL_BACKOFF = 4;
/** Done; about to be handed back to its parent and freed. */
export const CALL_SETTLED = 5;

/** Stage of a call: the call itself, then (cache miss) the look-aside read, then the write-back. */
export const STAGE_PRIMARY = 0;
export const STAGE_MISS = 1;
export const STAGE_FILL = 2;

/**
 * The caller side of one logical call (a user request, or one downstream call of a service
 * request, or one key of a fan-out), across its attempts and look-aside stages. Pooled: a record
 * is reused after it settles; `gen` changes whenever the call moves on, so deadline entries and
 * late replies that refer to an older generation are ignored.
 */
export class Call {
  gen = 0;
  state = CALL_FREE;
  /** Task id of the service request that made the call; -1 for a user request. */
  parent = -1;
  plan: CallPlan | null = null;
  stage = STAGE_PRIMARY;
  /** Set by `ClientGroupModel.bind` before the call starts (and again for each look-aside stage). */
  group: Caller = undefined as unknown as Caller;
  instance = 0;
  /** Destination node (global index: service, cache shard or database). */
  node = 0;
  pool = -1;
  attempt = 0;
  /** The key of a per-item or cache call. */
  key = 0;
  /** The client group's process epoch at bind: a restart of the owning process orphans the call. */
  epoch = 0;
  /** The last cache reply was a hit. */
  hit = false;
  /** How the destination took the connection this attempt was sent on (`DIAL_*` of server-connections.ts). */
  connState = 0;
  /** The server task holding this attempt's request (caches), -1 when unknown: its connection's fd outlives a client close until that task is done. */
  serverTask = -1;
  /** When the current attempt's request went out, and when (and whether) it gets or got a hedge. */
  attemptSentAtUs = 0;
  hedgeAtUs = -1;
  hedged = false;
  /** The user request's schedule position: picks the client instance at every hop. */
  userSeq = 0;
  kind = 0;
  /** The cache op of this call (ops.ts): its plan's for the request's kind, get without one. Derived, not stored: a field on every call would cost the model's state ~8 bytes each. */
  get op(): number {
    const ops = this.plan?.ops;
    return ops == null ? OP_GET : ops[this.kind]!;
  }
  /** Time to live the request's writes set, µs (0: never expires); carried from the user request down its calls. */
  ttlUs = 0;
  // User requests only:
  client = 0;
  intendedAtUs = 0;
  sentAtUs = 0;
  keys: Uint32Array<ArrayBuffer> = new Uint32Array(1);
  keyCount = 0;

  constructor(readonly id: number) {}

  setKeys(source: Uint32Array, count: number): void {
    this.keys = copyKeys(this.keys, source, count);
    this.keyCount = count;
  }
}

/** Copies `count` keys into `into`, growing it only when a bigger batch than ever before arrives. */
function copyKeys(into: Uint32Array<ArrayBuffer>, source: Uint32Array, count: number): Uint32Array<ArrayBuffer> {
  const target = count > into.length ? new Uint32Array(Math.max(count, into.length * 2)) : into;
  for (let i = 0; i < count; i++) target[i] = source[i]!;
  return target;
}

export const TASK_FREE = 0;
export const TASK_QUEUED = 1;
export const TASK_RUNNING = 2;
export const TASK_REJECTED = 3;

/**
 * Server-side work at one node: a service request (holding a worker through its calls), a cache
 * get/set on a shard, or a database operation. Replies to the call that sent it, if that call is
 * still waiting (same `originGen`). Pooled like `Call`.
 */
export class Task {
  state = TASK_FREE;
  originCall = -1;
  originGen = 0;
  kind = 0;
  userSeq = 0;
  enqueuedAtUs = 0;
  /** Failure to reply with (a rejection, or the first failed call). */
  reason = 0;
  // Service requests:
  service: TaskOwner | null = null;
  keys: Uint32Array<ArrayBuffer> = new Uint32Array(1);
  keyCount = 0;
  /** Index into the service's calls; -1 while in serviceTime. */
  step = -1;
  itemCount = 0;
  nextItem = 0;
  inFlight = 0;
  pumping = false;
  repump = false;
  /** The service process's epoch when the task arrived; a restart makes older tasks dead. */
  epoch = 0;
  /** Log writes of this request's failed calls still blocking (the items finish when they do). */
  pendingLogs = 0;
  /** Waiting for a core (cpus) or running its serviceTime: an EV_SERVICE_DONE may be pending. */
  onCpu = false;
  // Cache and database operations:
  key = 0;
  shard = 0;
  isSet = false;
  /** The cache op the task executes (ops.ts). */
  op = 0;
  /** Service requests and cache ops: the request's time to live, µs (0: none). */
  ttlUs = 0;
  /** Database reads of a read-through miss: the cache the completed read fills. */
  fillCache: KeyedDestination | null = null;
  /** The client closed the connection this request came on: the server frees its fd when the task is done. */
  connClosed = false;
  /** A health-check probe's owner (its reply goes there, not to a call); null for calls. */
  prober: Prober | null = null;

  constructor(readonly id: number) {}

  setKeys(source: Uint32Array, count: number): void {
    this.keys = copyKeys(this.keys, source, count);
    this.keyCount = count;
  }
}

/** A free list of records that grows on demand and never shrinks: steady state allocates nothing. */
export class RecordPool<T extends { readonly id: number }> {
  readonly items: T[] = [];
  private free: number[] = [];
  inUse = 0;
  highWater = 0;

  constructor(private readonly create: (id: number) => T) {}

  alloc(): T {
    this.inUse++;
    if (this.inUse > this.highWater) this.highWater = this.inUse;
    const id = this.free.pop();
    if (id !== undefined) return this.items[id]!;
    const record = this.create(this.items.length);
    this.items.push(record);
    return record;
  }

  release(record: T): void {
    this.inUse--;
    this.free.push(record.id);
  }
}
