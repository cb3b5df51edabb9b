import type { CallSettler, ModelContext } from './context.ts';
import { NO_LIVE_NODE } from './reasons.ts';
import { CALL_SENT, CALL_SETTLED, planNode, STAGE_FILL, STAGE_MISS, STAGE_PRIMARY, type Call, type CallPlan, type Task } from './records.ts';
import { VIEW_BACK, VIEW_DEAD } from './view.ts';
import { isReadOp } from './ops.ts';

/**
 * What a finished attempt means for its call: a cache miss moves on to the look-aside read, a
 * successful read to the write-back, anything else settles the call with its parent — the service
 * request that made it, or the driver for a user request.
 */
export class CallFlow implements CallSettler {
  constructor(private readonly ctx: ModelContext) {}

  /** Starts item `item` of the task's current call (a per-item key, or the single call). */
  launch(task: Task, plan: CallPlan, item: number): void {
    const call = this.ctx.calls.alloc();
    call.parent = task.id;
    call.plan = plan;
    call.stage = STAGE_PRIMARY;
    call.userSeq = task.userSeq;
    call.kind = task.kind;
    call.ttlUs = task.ttlUs;
    call.key = plan.perItem ? task.keys[item]! : task.keyCount > 0 ? task.keys[0]! : 0;
    // A cache write is a write from the start, never a miss to fall back on (a database write is marked by its plan).
    if (!isReadOp(call.op)) call.stage = STAGE_FILL;
    const hotKeys = plan.group.hotKeys;
    if (hotKeys !== null && plan.cache !== null && call.stage === STAGE_PRIMARY) {
      const instance = call.userSeq % plan.group.instances;
      const now = this.ctx.sim.nowUs;
      // A promoted key is answered from the client's own memory: no network, no shard.
      if (hotKeys.servesLocally(instance, call.key, now)) return this.settle(call, 0);
      hotKeys.observe(instance, call.key, now);
    }
    const node = this.route(call, plan);
    if (node < 0) return this.unasked(call, plan);
    plan.group.bind(call, node);
    plan.group.start(call);
  }

  /**
   * No node can take the call (this instance holds the key's node, or every node, for dead). Nothing
   * succeeds without being asked: a read is a miss the fallback (`onMiss`) reads, and without a
   * fallback it fails, as a write does.
   */
  private unasked(call: Call, plan: CallPlan): void {
    const stats = plan.group.stats;
    if (call.stage === STAGE_PRIMARY && plan.onMiss !== null) {
      stats.missedUnasked++;
      call.hit = false;
      return this.attemptSucceeded(call);
    }
    stats.noLiveNode++;
    this.settle(call, NO_LIVE_NODE);
  }

  /**
   * The node for the call's key through its plan's group, in that client instance's own view:
   * the key's node, or with client-side ejection the next live node on the ring (rehash), or -1
   * to skip the cache (miss).
   */
  private route(call: Call, plan: CallPlan): number {
    const node = planNode(plan, call.key);
    const group = plan.group;
    const cache = plan.cache;
    if (cache === null || group.markDown === null) return node;
    const instance = call.userSeq % group.instances;
    const view = group.viewOf(instance, node);
    if (view === VIEW_BACK) cache.markDownLapsed(node);
    if (view !== VIEW_DEAD) return node;
    // A write that skips the key's node leaves the copy there behind.
    if ((plan.write || !isReadOp(call.op)) && call.stage === STAGE_FILL) cache.writeBypassed(call.key, node);
    group.stats.routedAround++;
    if (group.markDown.then === 'miss') return -1;
    return cache.nodeOfKeyAvoiding(call.key, group, instance);
  }

  reply(callId: number, gen: number, reason: number, hit: boolean): void {
    const call = this.ctx.calls.items[callId]!;
    // A different generation: the caller timed out (or the record was reused); nobody waits for this reply.
    if (call.gen !== gen || call.state !== CALL_SENT) return;
    call.group.replied(call, reason, hit);
  }

  attemptSucceeded(call: Call): void {
    const plan = call.plan;
    if (plan !== null) {
      if (call.stage === STAGE_PRIMARY && plan.onMiss !== null && !call.hit) {
        call.stage = STAGE_MISS;
        plan.onMiss.group.bind(call, plan.onMiss.node);
        return plan.onMiss.group.start(call);
      }
      if (call.stage === STAGE_MISS && plan.fill) {
        const node = this.route(call, plan);
        if (node >= 0) {
          call.stage = STAGE_FILL;
          plan.group.bind(call, node);
          return plan.group.start(call);
        }
        plan.group.stats.fillsSkipped++;
      }
    }
    this.settle(call, 0);
  }

  callFailed(call: Call, reason: number): void {
    if (call.plan?.optional === true) {
      // The request goes on without an optional dependency.
      call.group.stats.optionalFailed++;
      return this.settle(call, 0);
    }
    // A failed write-back only means the next reader misses again (the value was read); a failed
    // write is the request's failure.
    const writeBack = call.stage === STAGE_FILL && call.plan?.write !== true && isReadOp(call.op);
    this.settle(call, writeBack ? 0 : reason);
  }

  settle(call: Call, reason: number): void {
    call.state = CALL_SETTLED;
    if (call.parent < 0) this.ctx.listener.userCompleted(call, reason);
    else {
      const task = this.ctx.tasks.items[call.parent]!;
      task.service!.callDone(task, reason);
    }
    this.ctx.freeCall(call);
  }
}
