import { IntDeque } from '../engine/int-deque.ts';
import type { EventHandler } from '../engine/simulation.ts';
import type { ModelContext, ModelNode } from './context.ts';
import { CALL_SENT, CALL_SETTLED, type Call } from './records.ts';
import { DIAL_ACCEPTED } from './server-connections.ts';

const EV_DELIVER = 1;

export type NetworkMode = 'delay' | 'drop' | 'hold';

export class NetworkStats {
  /** Requests that passed through the element while it misbehaved. */
  requests = 0;
  dropped = 0;
  /** Delivered late to a server whose caller had already given up (work nobody waits for). */
  deliveredOrphaned = 0;
}

/**
 * A network element in front of some nodes for a window: it takes their incoming requests in
 * place of the nodes (`ctx.nodes`) and drops them, delays them, or holds them until the window
 * ends. A held or delayed request reaches the server even when its caller has given up (timed
 * out, retried): the request was on the wire. So the caller's record can move on meanwhile, each
 * held request travels as a copy — a settled call record nobody waits for, unless the original
 * still waits at delivery.
 */
export class NetworkLink implements ModelNode, EventHandler {
  readonly stats = new NetworkStats();
  /** (copy id, original id, original gen, node) per request in transit, oldest first. */
  private readonly inTransit = new IntDeque(64);
  private readonly real = new Map<number, ModelNode>();
  private active = false;
  private readonly handlerId: number;

  constructor(
    private readonly ctx: ModelContext,
    private readonly nodes: readonly number[],
    private readonly mode: NetworkMode,
    private readonly delayUs: number,
  ) {
    this.handlerId = ctx.sim.register(this);
  }

  /** The window opens: the element sits in front of its nodes. */
  begin(): void {
    if (this.active) return;
    this.active = true;
    for (const node of this.nodes) {
      this.real.set(node, this.ctx.nodes[node]!);
      this.ctx.nodes[node] = this;
    }
  }

  /** The window closes: requests go straight to the nodes again; a buffer delivers what it held, all at once. */
  end(): void {
    if (!this.active) return;
    this.active = false;
    for (const node of this.nodes) this.ctx.nodes[node] = this.real.get(node)!;
    if (this.mode === 'hold') while (this.inTransit.size > 0) this.deliverOldest();
  }

  accept(call: Call, node: number): void {
    this.stats.requests++;
    if (this.mode === 'drop') {
      this.stats.dropped++;
      return;
    }
    const copy = this.copyOf(call);
    this.inTransit.pushBack(copy.id);
    this.inTransit.pushBack(call.id);
    this.inTransit.pushBack(call.gen);
    this.inTransit.pushBack(node);
    // Every request waits the same delay: deliveries are due in arrival order.
    if (this.mode === 'delay') this.ctx.sim.after(this.delayUs, this.handlerId, EV_DELIVER, 0);
  }

  handle(): void {
    this.deliverOldest();
  }

  private deliverOldest(): void {
    const calls = this.ctx.calls.items;
    const copy = calls[this.inTransit.popFront()]!;
    const original = calls[this.inTransit.popFront()]!;
    const gen = this.inTransit.popFront();
    const node = this.inTransit.popFront();
    const target = this.real.get(node)!;
    if (original.gen === gen && original.state === CALL_SENT) target.accept(original, node);
    else {
      this.stats.deliveredOrphaned++;
      target.accept(copy, node);
    }
    this.ctx.freeCall(copy);
  }

  /** What a server reads from a request, in a record of its own (settled: a reply to it is ignored). */
  private copyOf(call: Call): Call {
    const copy = this.ctx.calls.alloc();
    copy.state = CALL_SETTLED;
    copy.parent = call.parent;
    copy.plan = call.plan;
    copy.stage = call.stage;
    copy.group = call.group;
    copy.instance = call.instance;
    copy.node = call.node;
    copy.key = call.key;
    copy.userSeq = call.userSeq;
    copy.kind = call.kind;
    copy.client = call.client;
    copy.intendedAtUs = call.intendedAtUs;
    copy.sentAtUs = call.sentAtUs;
    copy.connState = DIAL_ACCEPTED;
    copy.setKeys(call.keys, call.keyCount);
    return copy;
  }
}
