import type { CallSettler, ModelContext } from './context.ts';
import { planNode, type CallPlan } from './call-plan.ts';
import { CALL_SENT, CALL_SETTLED, STAGE_FILL, STAGE_MISS, STAGE_PRIMARY, type Call, type Task } from './records.ts';

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
    call.key = plan.perItem ? task.keys[item]! : task.keyCount > 0 ? task.keys[0]! : 0;
    plan.group.bind(call, planNode(plan, call.key));
    plan.group.start(call);
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
        call.stage = STAGE_FILL;
        plan.group.bind(call, planNode(plan, call.key));
        return plan.group.start(call);
      }
    }
    this.settle(call, 0);
  }

  callFailed(call: Call, reason: number): void {
    // The value was read; a failed write-back only means the next reader misses again.
    this.settle(call, call.stage === STAGE_FILL ? 0 : reason);
  }

  private settle(call: Call, reason: number): void {
    call.state = CALL_SETTLED;
    if (call.parent < 0) this.ctx.listener.userCompleted(call, reason);
    else {
      const task = this.ctx.tasks.items[call.parent]!;
      task.service!.callDone(task, reason);
    }
    this.ctx.freeCall(call);
  }
}
