import type { Plan, ScheduledRequest } from '../schedule/types.ts';
import { Simulation } from './engine/simulation.ts';
import type { GaugeSpec } from '../recorder/gauges.ts';
import { serviceKind } from './components/service/kind.ts';
import { buildModel, type BuiltModel } from './assembly/build.ts';
import { ModelContext, type ModelListener } from './core/context.ts';
import { CALL_FREE, CALL_SETTLED, STAGE_PRIMARY, type Call } from './core/records.ts';
import type { Topology } from '../profile/topology/index.ts';

export type { ModelListener } from './core/context.ts';
export type { Call } from './core/records.ts';
export { REASON_NAMES, UNFINISHED } from './core/reasons.ts';

/**
 * A topology ready to simulate one run: inject user requests at their intended time, run the
 * simulation, read gauges. A pure function of (topology, plan, seed) — no wall clock, no
 * Math.random; each component draws from its own stream derived from the seed and its name.
 */
export class Model {
  readonly sim = new Simulation();
  readonly ctx: ModelContext;
  readonly parts: BuiltModel;
  private lastGaugeUs = 0;

  constructor(topology: Topology, plan: Plan, seed: number, listener: ModelListener) {
    this.ctx = new ModelContext(this.sim, seed, listener);
    this.parts = buildModel(this.ctx, topology, plan);
  }

  /** Sends a user request into the system now (its intended time, in an open-loop model). */
  inject(request: ScheduledRequest): void {
    const call = this.ctx.calls.alloc();
    call.parent = -1;
    call.plan = null;
    call.stage = STAGE_PRIMARY;
    call.userSeq = request.seq;
    call.kind = request.kind;
    call.ttlUs = request.ttlUs;
    call.client = request.client;
    call.intendedAtUs = request.intendedAtUs;
    call.sentAtUs = this.sim.nowUs;
    call.setKeys(request.keys, request.batchSize);
    const group = this.parts.callerByClient[request.client]!;
    group.bind(call, this.parts.entryNodeByKind[request.kind]!);
    group.start(call);
  }

  /** User requests still in flight (for the drain limit); allocates, so only for the end of a run. */
  inFlightUserCalls(): Call[] {
    return this.ctx.calls.items.filter((c) => c.parent < 0 && c.state !== CALL_FREE && c.state !== CALL_SETTLED);
  }

  /** Work finished by entry services (successful or not, whether or not anyone still waits): throughput. */
  entryRequestsFinished(): number {
    let n = 0;
    for (const s of this.parts.wiring.all(serviceKind)) if (s.config.isEntry) n += s.stats.succeeded + s.stats.failed;
    return n;
  }

  /** The gauges this topology's components may write (each once), for the run's gauge catalog. */
  gaugeSpecs(): GaugeSpec[] {
    const byName = new Map<string, GaugeSpec>();
    for (const source of this.parts.gaugeSources) for (const spec of source.gaugeSpecs) byName.set(spec.name, spec);
    return [...byName.values()];
  }

  /** The model's gauges now; rates and ratios cover the time since the previous call (one interval when the recorder calls once per interval). */
  gauges(into: Record<string, number>): void {
    for (const source of this.parts.gaugeSources) source.gauges(into, this.lastGaugeUs);
    this.lastGaugeUs = this.sim.nowUs;
  }

  /** Per-component counters for the run's details, by section. */
  componentDetails(): Record<string, unknown> {
    const details: Record<string, unknown> = {};
    for (const { section, components } of this.parts.sections) details[section] = Object.fromEntries(components.map((c) => [c.name, c.details()]));
    details['records'] = { callsHighWater: this.ctx.calls.highWater, tasksHighWater: this.ctx.tasks.highWater };
    details['warnings'] = this.parts.warnings;
    return details;
  }
}
