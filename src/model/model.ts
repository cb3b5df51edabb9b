import type { Plan, ScheduledRequest } from '../schedule/types.ts';
import { Simulation } from './engine/simulation.ts';
import { buildModel, type BuiltModel } from './core/build.ts';
import { ModelContext, type ModelListener } from './core/context.ts';
import { CALL_FREE, CALL_SETTLED, STAGE_PRIMARY, type Call } from './core/records.ts';
import type { Topology } from './topology.ts';

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
  private lastHits: number[];
  private lastGets: number[];
  private readonly lastAttempts: number[];
  private readonly lastRetries: number[];
  private lastGaugeUs = 0;

  constructor(topology: Topology, plan: Plan, seed: number, listener: ModelListener) {
    this.ctx = new ModelContext(this.sim, seed, listener);
    this.parts = buildModel(this.ctx, topology, plan);
    this.lastHits = this.parts.caches.map(() => 0);
    this.lastGets = this.parts.caches.map(() => 0);
    this.lastAttempts = this.parts.groups.map(() => 0);
    this.lastRetries = this.parts.groups.map(() => 0);
  }

  /** Sends a user request into the system now (its intended time, in an open-loop model). */
  inject(request: ScheduledRequest): void {
    const call = this.ctx.calls.alloc();
    call.parent = -1;
    call.plan = null;
    call.stage = STAGE_PRIMARY;
    call.userSeq = request.seq;
    call.kind = request.kind;
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
    for (const s of this.parts.services) if (s.config.isEntry) n += s.stats.succeeded + s.stats.failed;
    return n;
  }

  /**
   * The model's gauges now. Hit ratios cover the time since the previous call (one interval when
   * the recorder calls once per interval; 0 when the cache saw no get).
   */
  gauges(into: Record<string, number>): void {
    const totals = this.ctx.totals;
    into['openConnections'] = totals.open;
    into['idleConnections'] = totals.idle;
    into['timeWaitConnections'] = totals.timeWait;
    let waiting = 0;
    for (const g of this.parts.groups) waiting += g.stats.waiting;
    into['checkoutWaiters'] = waiting;
    for (const g of this.parts.groups) {
      if (g.markDown !== null) into[`markedDown.${g.name}`] = g.markedDownNow();
      if (g.hotKeys !== null) into[`hotKeyLocalHits.${g.name}`] = g.hotKeys.stats.localHits;
    }
    // Attempts and retries per second per group since the previous sample (offered load vs attempts).
    const seconds = (this.sim.nowUs - this.lastGaugeUs) / 1e6;
    this.parts.groups.forEach((g, i) => {
      if (!g.pooled && g.stats.retries === 0) return;
      into[`attemptsRps.${g.name}`] = seconds > 0 ? (g.stats.attempts - this.lastAttempts[i]!) / seconds : 0;
      into[`retriesRps.${g.name}`] = seconds > 0 ? (g.stats.retries - this.lastRetries[i]!) / seconds : 0;
      if (g.stats.dialErrors > 0) into[`dialErrors.${g.name}`] = g.stats.dialErrors;
      this.lastAttempts[i] = g.stats.attempts;
      this.lastRetries[i] = g.stats.retries;
    });
    this.lastGaugeUs = this.sim.nowUs;
    for (const s of this.parts.services) {
      into[`queueDepth.${s.name}`] = s.queue.size;
      into[`busyWorkers.${s.name}`] = s.busy;
      const process = s.config.process;
      if (process !== null) {
        into[`threads.${s.name}`] = process.threads;
        into[`memoryMb.${s.name}`] = Math.round(process.usedMb());
        into[`gcShare.${s.name}`] = process.gcShare();
        into[`oomKills.${s.name}`] = process.stats.oomKills;
        into[`down.${s.name}`] = s.down ? 1 : 0;
      }
      if (Number.isFinite(s.config.cpus)) into[`cpuQueue.${s.name}`] = s.cpuQueue.size;
    }
    this.parts.caches.forEach((c, i) => {
      const gets = c.stats.gets - this.lastGets[i]!;
      const hits = c.stats.hits - this.lastHits[i]!;
      into[`hitRatio.${c.name}`] = gets > 0 ? hits / gets : 0;
      into[`shards.${c.name}`] = c.shards;
      if (c.lru.copies) into[`staleReads.${c.name}`] = c.stats.staleReads;
      into[`throttledOps.${c.name}`] = c.stats.throttled;
      let conns = 0;
      for (let s = 0; s < c.slots; s++) conns = Math.max(conns, this.ctx.connections[c.nodeBase + s]!);
      into[`shardConnectionsMax.${c.name}`] = conns;
      if (c.memoryPressure() > 0 || c.deadCount > 0) {
        into[`deadShards.${c.name}`] = c.deadCount;
        into[`memoryPressure.${c.name}`] = c.memoryPressure();
      }
      into[`nicBacklogMs.${c.name}`] = c.nicBacklogUs() / 1000;
      this.lastGets[i] = c.stats.gets;
      this.lastHits[i] = c.stats.hits;
    });
    for (const d of this.parts.databases) into[`dbInFlight.${d.name}`] = d.outstanding;
    for (const h of this.parts.hosts) into[`timeWaitConnections.${h.name}`] = h.timeWaitTotal;
  }

  /** Per-component counters for the run's details. */
  componentDetails(): Record<string, unknown> {
    const p = this.parts;
    return {
      services: Object.fromEntries(
        p.services.map((s) => [
          s.name,
          {
            ...s.stats,
            meanQueueWaitUs: s.stats.started > 0 ? s.stats.queueWaitUs / s.stats.started : 0,
            busyWorkers: s.busy,
            queueDepth: s.queue.size,
            ...(s.config.process ? { process: { ...s.config.process.stats } } : {}),
          },
        ]),
      ),
      caches: Object.fromEntries(
        p.caches.map((c) => [c.name, { ...c.stats, shards: c.shards, ...(c.lru.copies ? { copiesOfTop100: copiesOfTop(c, 100) } : {}), misses: c.stats.gets - c.stats.hits, hitRatio: c.stats.gets > 0 ? c.stats.hits / c.stats.gets : 0, evictions: c.lru.evictions }]),
      ),
      databases: Object.fromEntries(
        p.databases.map((d) => [d.name, { ...d.stats, meanLatencyUs: d.stats.completed > 0 ? d.stats.latencyUs / d.stats.completed : 0, outstanding: d.outstanding }]),
      ),
      clientGroups: Object.fromEntries(
        p.groups.map((g) => [
          g.name,
          {
            ...g.stats,
            ...(g.hotKeys ? { hotKeys: { ...g.hotKeys.stats } } : {}),
            instances: g.instances,
            pools: g.pools.length,
            openHighWaterPerPool: g.pools.reduce((m, pool) => Math.max(m, pool.openHighWater), 0),
            maxOpen: finiteOrInf(g.pools.length > 0 ? g.maxOpenEver : Number.POSITIVE_INFINITY),
          },
        ]),
      ),
      hosts: Object.fromEntries(
        p.hosts.map((h) => [h.name, { portRange: h.portRange, timeWait: h.timeWaitTotal, timeWaitHighWaterPerTuple: h.timeWaitHighWater, portsHighWaterPerTuple: h.portsHighWater }]),
      ),
      records: { callsHighWater: this.ctx.calls.highWater, tasksHighWater: this.ctx.tasks.highWater },
      warnings: p.warnings,
    };
  }
}

/** Infinity as "inf", the way topologies write it (JSON has no Infinity). */
function finiteOrInf(n: number): number | 'inf' {
  return Number.isFinite(n) ? n : 'inf';
}

/** Shards holding a copy of each of the `n` most popular keys (ids are popularity ranks): mean and max. */
function copiesOfTop(cache: Model['parts']['caches'][number], n: number): { mean: number; max: number } {
  let sum = 0;
  let max = 0;
  for (let key = 0; key < n; key++) {
    const c = cache.lru.copiesOf(key);
    sum += c;
    max = Math.max(max, c);
  }
  return { mean: sum / n, max };
}
