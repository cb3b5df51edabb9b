import type { EventHandler } from '../model/engine/simulation.ts';
import { Model, REASON_NAMES, UNFINISHED, type Call, type ModelListener } from '../model/model.ts';
import { MODEL_TARGET } from '../profile/protocols/model/spec.ts';
import type { Topology } from '../profile/topology/index.ts';
import { requireTopology } from '../profile/topology-required.ts';
import type { Profile } from '../profile/types.ts';
import type { DriverReport, ModelDivergence, ModelReport, TimelineOutcome } from '../recorder/driver-report.ts';
import { planTimeline } from './timeline/steps.ts';
import { SHARED_GAUGES, defineGauge, gaugeKey, intervalMaxOf, type GaugeSpec } from '../recorder/gauges.ts';
import type { Recorder } from '../recorder/types.ts';
import { emptyRequest, type Schedule } from '../schedule/types.ts';
import { ClosedLoopUsers, type UserSender } from './model-users.ts';
import { StartTimeSuccess } from './start-time-success.ts';
import type { Driver, RunContext } from './types.ts';

export interface ModelDriverOptions {
  /** Virtual time between interval boundaries passed to `recorder.advanceTo`; default 1 s. */
  tickUs?: number;
  /** Events per slice; between slices the driver checks the abort signal and yields to the event loop. */
  sliceEvents?: number;
  /**
   * Virtual time after the schedule's end before requests still in flight are failed as
   * `unfinished`; default the larger of 60 s and the longest a call through any client group can
   * take (its timeouts × attempts + backoffs).
   */
  drainUs?: number;
  /** Most pending model state (events + calls + operations) before the run stops as diverged; default the profile's `limits.maxModelState`. */
  maxState?: number;
}

/** The run-wide gauges the driver itself measures; the model's components declare their own. */
const RUN_GAUGES = {
  inFlight: SHARED_GAUGES.inFlight,
  inFlightMax: intervalMaxOf(SHARED_GAUGES.inFlight, defineGauge('inFlightMax', 'count', 'queues', 'most user requests in flight at any moment of the interval')),
  goodputRps: defineGauge('goodputRps', 'rps', 'rates', 'user requests completed successfully per second'),
  throughputRps: defineGauge('throughputRps', 'rps', 'rates', 'requests finished by entry services per second, successful or not'),
} as const;

const EV_ARRIVAL = 1;
const EV_TICK = 2;
const EV_DRAIN_LIMIT = 3;

/**
 * The timeline as the model played it: each step at its planned virtual time (the model applies
 * it exactly then), those past the run's end not reached; exec is never run in virtual time.
 */
function modelTimeline(profile: Profile, endUs: number): TimelineOutcome[] {
  const events = profile.topology?.timeline ?? [];
  if (events.length === 0) return [];
  const steps = planTimeline({ events, target: MODEL_TARGET, clients: profile.clients.map((c) => c.name) });
  return steps.map((s) => {
    const status = s.action.kind === 'exec' ? 'skipped' : s.plannedMs * 1000 <= endUs ? 'applied' : 'not reached';
    return { index: s.index, type: s.type, label: s.label, plannedMs: s.plannedMs, actualMs: status === 'applied' ? s.plannedMs : null, status };
  });
}

/** The `model` target: the profile's schedule through a discrete-event simulation of its topology, in virtual time. */
export function createModelDriver(options: ModelDriverOptions = {}): Driver {
  return {
    target: MODEL_TARGET.text,
    run: (context) => new ModelRun(context, options).execute(context.signal),
  };
}

/**
 * One run of the model: pulls the schedule one request at a time (memory stays flat however long
 * the schedule), injects each at its intended time, reports every user request to the recorder
 * exactly once, and closes recorder intervals on virtual-time boundaries.
 */
class ModelRun implements EventHandler, ModelListener, UserSender {
  private readonly model: Model;
  private readonly recorder: Recorder;
  private readonly schedule: Schedule;
  private readonly profile: Profile;
  private readonly handlerId: number;
  private readonly reasonCodes: number[];
  private readonly pending = emptyRequest();
  private readonly tickUs: number;
  private readonly sliceEvents: number;
  private readonly stopAtUs: number;
  private exhausted = false;
  private finished = false;
  private readonly maxState: number;
  /** Closed-loop users when the caller group has `closedLoop`; null: open loop, every request at its intended time. */
  private readonly users: ClosedLoopUsers | null;
  private diverged: ModelDivergence | null = null;
  private endUs = 0;
  // User requests.
  private started = 0;
  private succeeded = 0;
  private failed = 0;
  private inFlight = 0;
  /** Most in flight since the previous gauge sample. */
  private inFlightPeak = 0;
  private readonly failedByReason: number[] = REASON_NAMES.map(() => 0);
  private readonly byStart: StartTimeSuccess;
  // Little's law: ∫ inFlight dt (from the counter) against Σ sojourn (from each request's record).
  private inSystemAreaUs = 0;
  private lastChangeUs = 0;
  private sojournSumUs = 0;
  // Gauge state: counts at the previous gauge sample.
  private lastGaugeUs = 0;
  private lastSucceeded = 0;
  private lastEntryFinished = 0;

  constructor(context: RunContext, options: ModelDriverOptions) {
    const topology: Topology = requireTopology(context.profile);
    this.profile = context.profile;
    this.schedule = context.schedule;
    this.recorder = context.recorder;
    const plan = this.schedule.plan;
    this.model = new Model(topology, plan, plan.seed, this);
    this.handlerId = this.model.sim.register(this);
    this.reasonCodes = REASON_NAMES.map((name, code) => (code === 0 ? 0 : this.recorder.reason(name)));
    this.tickUs = options.tickUs ?? 1_000_000;
    this.byStart = new StartTimeSuccess(this.tickUs);
    this.sliceEvents = options.sliceEvents ?? 65_536;
    this.maxState = options.maxState ?? context.profile.limits.maxModelState;
    this.stopAtUs = plan.totalUs + (options.drainUs ?? defaultDrainUs(topology));
    const closedLoop = typeof topology.caller === 'string' ? topology.clientGroups[topology.caller]?.closedLoop : undefined;
    this.users = closedLoop === undefined ? null : new ClosedLoopUsers(this.model.sim, closedLoop, plan.seed, this);
    this.recorder.setGaugeSource(() => this.gauges());
    context.declareGauges?.(this.gaugeSpecs());
  }

  async execute(signal: AbortSignal): Promise<DriverReport> {
    const sim = this.model.sim;
    if (this.users !== null) this.users.start();
    else this.pullNext();
    sim.at(Math.min(this.tickUs, this.stopAtUs), this.handlerId, EV_TICK, 0);
    sim.at(this.stopAtUs, this.handlerId, EV_DRAIN_LIMIT, 0);
    this.finishIfDone();
    let interrupted = false;
    while (!this.finished) {
      if (signal.aborted) {
        interrupted = true;
        this.failInFlight();
        break;
      }
      const outcome = sim.run(this.stopAtUs, this.sliceEvents);
      // Between slices, never per event: state grows by at most a slice's worth past the limit.
      if (this.overStateLimit()) this.failInFlight();
      else if (outcome === 'idle') this.failInFlight();
      else if (outcome === 'budget') await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.recorder.advanceTo(this.endUs);
    const timeline = modelTimeline(this.profile, this.endUs);
    return {
      elapsedUs: this.endUs,
      interrupted,
      loop: this.users === null ? 'open' : 'closed',
      gauges: this.gaugeSpecs(),
      model: this.details(),
      ...(timeline.length > 0 && { timeline }),
    };
  }

  /**
   * A system whose queues grow without bound (a retry storm, load above capacity on an unbounded
   * queue) would grow the simulator until the heap limit kills it. Past the limit the run stops
   * here: what is in flight fails as `unfinished` and the report says where it diverged.
   */
  private overStateLimit(): boolean {
    if (this.finished) return false;
    const ctx = this.model.ctx;
    const state = this.model.sim.pendingEvents + ctx.calls.inUse + ctx.tasks.inUse;
    if (state <= this.maxState) return false;
    this.diverged = { atUs: this.model.sim.nowUs, state, limit: this.maxState };
    return true;
  }

  private gaugeSpecs(): GaugeSpec[] {
    return [...Object.values(RUN_GAUGES), ...this.model.gaugeSpecs()];
  }

  handle(code: number): void {
    if (code === EV_ARRIVAL) {
      this.arrive();
    } else if (code === EV_TICK) {
      const now = this.model.sim.nowUs;
      this.recorder.advanceTo(now);
      if (now + this.tickUs <= this.stopAtUs) this.model.sim.at(now + this.tickUs, this.handlerId, EV_TICK, 0);
    } else if (code === EV_DRAIN_LIMIT) {
      this.failInFlight();
    }
  }

  userCompleted(call: Call, reason: number): void {
    const now = this.model.sim.nowUs;
    this.accountInSystem(now);
    this.inFlight--;
    this.sojournSumUs += now - call.sentAtUs;
    if (reason === 0) this.succeeded++;
    else {
      this.failed++;
      this.failedByReason[reason]!++;
    }
    this.recorder.complete(call.intendedAtUs, call.sentAtUs, now, call.client, call.kind, this.reasonCodes[reason]!);
    this.byStart.add(call.intendedAtUs, reason === 0);
    this.users?.ended(call.userSeq);
    this.finishIfDone();
  }

  private arrive(): void {
    const now = this.model.sim.nowUs;
    this.accountInSystem(now);
    this.started++;
    if (++this.inFlight > this.inFlightPeak) this.inFlightPeak = this.inFlight;
    this.recorder.sent(this.pending.intendedAtUs, now, this.pending.client);
    this.model.inject(this.pending);
    if (this.users === null) this.pullNext();
  }

  /**
   * A closed-loop user is ready: the schedule's next request goes now (its intended time is now —
   * what a closed-loop tool measures from), while the run lasts and the schedule has requests.
   */
  sendNext(user: number): boolean {
    const now = this.model.sim.nowUs;
    if (this.exhausted || now >= this.schedule.plan.totalUs || !this.schedule.next(this.pending)) return false;
    this.pending.intendedAtUs = now;
    this.users!.sent(this.pending.seq, user);
    this.arrive();
    return true;
  }

  allStopped(): void {
    this.exhausted = true;
    this.finishIfDone();
  }

  /** Schedules the next request's arrival; only one arrival is ever pending. */
  private pullNext(): void {
    if (this.schedule.next(this.pending)) this.model.sim.at(this.pending.intendedAtUs, this.handlerId, EV_ARRIVAL, 0);
    else {
      this.exhausted = true;
      this.finishIfDone();
    }
  }

  private finishIfDone(): void {
    if (this.finished || !this.exhausted || this.inFlight > 0) return;
    this.finished = true;
    this.endUs = this.model.sim.nowUs;
    this.model.sim.stop();
  }

  /** The drain limit (or an abort): whatever is still in flight fails as `unfinished` now. */
  private failInFlight(): void {
    this.exhausted = true;
    for (const call of this.model.inFlightUserCalls()) this.userCompleted(call, UNFINISHED);
    this.finishIfDone();
  }

  private accountInSystem(now: number): void {
    this.inSystemAreaUs += this.inFlight * (now - this.lastChangeUs);
    this.lastChangeUs = now;
  }

  private gauges(): Record<string, number> {
    const now = this.model.sim.nowUs;
    const g: Record<string, number> = { [gaugeKey(RUN_GAUGES.inFlight)]: this.inFlight, [gaugeKey(RUN_GAUGES.inFlightMax)]: Math.max(this.inFlightPeak, this.inFlight) };
    this.inFlightPeak = this.inFlight;
    this.model.gauges(g);
    const seconds = (now - this.lastGaugeUs) / 1e6;
    const entryFinished = this.model.entryRequestsFinished();
    g[gaugeKey(RUN_GAUGES.goodputRps)] = seconds > 0 ? (this.succeeded - this.lastSucceeded) / seconds : 0;
    g[gaugeKey(RUN_GAUGES.throughputRps)] = seconds > 0 ? (entryFinished - this.lastEntryFinished) / seconds : 0;
    this.lastGaugeUs = now;
    this.lastSucceeded = this.succeeded;
    this.lastEntryFinished = entryFinished;
    return g;
  }

  private details(): ModelReport {
    const sim = this.model.sim;
    const completed = this.succeeded + this.failed;
    const windowUs = this.endUs;
    return {
      events: sim.eventsProcessed,
      pendingEventsHighWater: sim.pendingHighWater,
      traceHash: sim.traceHash.toString(16).padStart(8, '0'),
      virtualEndUs: this.endUs,
      littlesLaw: {
        windowUs,
        inSystemMean: windowUs > 0 ? this.inSystemAreaUs / windowUs : 0,
        throughputRps: windowUs > 0 ? (completed * 1e6) / windowUs : 0,
        meanTimeInSystemUs: completed > 0 ? this.sojournSumUs / completed : 0,
      },
      requests: {
        started: this.started,
        succeeded: this.succeeded,
        failed: this.failed,
        inFlight: this.inFlight,
        failedByReason: Object.fromEntries(REASON_NAMES.flatMap((name, code) => (code > 0 && this.failedByReason[code]! > 0 ? [[name, this.failedByReason[code]!]] : []))),
      },
      ...(this.diverged !== null && { diverged: this.diverged }),
      successByStart: this.byStart.result(),
      ...this.model.componentDetails(),
    };
  }
}

/** 60 s, or longer when a call through some client group can take longer (timeouts × attempts + backoffs). */
function defaultDrainUs(topology: Topology): number {
  let longest = 60_000_000;
  for (const g of Object.values(topology.clientGroups)) {
    const perAttempt = finiteOr0(g.pool.checkoutTimeout) + g.pool.connectCost + finiteOr0(g.timeout);
    const attempts = g.retries.count + 1;
    longest = Math.max(longest, perAttempt * attempts + g.retries.backoff.max * g.retries.count);
  }
  return longest;
}

function finiteOr0(us: number): number {
  return Number.isFinite(us) ? us : 0;
}
