import { ClientGroupSchema, HostSchema } from '../../../profile/topology/index.ts';
import { defineGauge, gaugeKey, SHARED_GAUGES } from '../../../recorder/gauges.ts';
import type { GaugeSource, ModelComponent } from '../../core/component.ts';
import type { ComponentKind, Wiring } from '../../core/wiring.ts';
import { HostState } from '../host/host.ts';
import { hostComponent, hostKind, TIME_WAIT_CONNECTIONS } from '../host/kind.ts';
import { ClientGroupModel, type ClientGroupStats } from './client-group.ts';
import type { HotKeyStats } from './hot-keys.ts';

const IDLE_CONNECTIONS = defineGauge('idleConnections', 'count', 'connections', 'open connections idle in a pool at the sample');
const CHECKOUT_WAITERS = defineGauge('checkoutWaiters', 'count', 'queues', 'calls waiting for a pooled connection at the sample');
const MARKED_DOWN = defineGauge('markedDown', 'count', 'faults', '(client instance, node) pairs a client holds for dead at the sample');
const HOT_KEY_LOCAL_HITS = defineGauge('hotKeyLocalHits', 'count', 'hit-ratio', 'gets answered by the in-process hot-key cache, since the start', 'run');
const ATTEMPTS_RPS = defineGauge('attemptsRps', 'rps', 'rates', 'attempts (first tries and retries) per second over the interval');
const RETRIES_RPS = defineGauge('retriesRps', 'rps', 'rates', 'retries per second over the interval');
const DIAL_ERRORS = defineGauge('dialErrors', 'count', 'connections', 'dials that found no free local port, since the start', 'run');

export type ClientGroupDetails = ClientGroupStats & {
  hotKeys?: HotKeyStats;
  instances: number;
  pools: number;
  openHighWaterPerPool: number;
  maxOpen: number | 'inf';
};

/** Callers: pools, timeouts, retries, fan-out limits; each on its host (declared, or a private one named after the group). */
export const clientGroupKind: ComponentKind<ClientGroupModel> = {
  section: 'clientGroups',
  after: [hostKind],
  build(wiring) {
    const { ctx, topology, plan } = wiring;
    const targets = groupTargets(wiring);
    const groups: ClientGroupModel[] = [];
    for (const [name, spec] of Object.entries(topology.clientGroups)) {
      const host = spec.host === undefined ? privateHost(wiring, name) : wiring.get(hostKind, spec.host);
      const group = new ClientGroupModel(
        ctx,
        name,
        spec,
        [...targets.get(name)!].sort((a, b) => a - b),
        wiring.nodeCount,
        host,
        plan.keyspace.count,
        plan.keyspace.count + plan.keyspace.hotKeys.length,
      );
      groups.push(group);
      wiring.add(clientGroupKind, group, groupComponent(group, wiring));
    }
    // Users calling `entry` directly: one unpooled group with no timeout, not reported.
    const direct = new ClientGroupModel(ctx, '(direct)', ClientGroupSchema.parse({}), [...new Set(wiring.entryNodeByKind)], wiring.nodeCount, null, plan.keyspace.count);
    wiring.callerByClient = plan.clients.map((c) => {
      const caller = wiring.callerOf(c.name);
      return caller === undefined ? direct : wiring.get(clientGroupKind, caller);
    });
    wiring.addGaugesAhead(clientGroupKind, connectionTotals(wiring, groups));
    for (const group of groups) if (group.markDown !== null || group.hotKeys !== null) wiring.addGaugesAhead(clientGroupKind, clientSideCacheGauges(group));
  },
};

/** Destination nodes per group: what services call through it, and the entry for a caller group. */
function groupTargets(wiring: Wiring): Map<string, Set<number>> {
  const { topology, plan } = wiring;
  const targets = new Map<string, Set<number>>(Object.keys(topology.clientGroups).map((g) => [g, new Set<number>()]));
  for (const spec of Object.values(topology.services)) {
    for (const call of spec.calls) {
      wiring.nodesOf(call.to).forEach((n) => targets.get(call.via)!.add(n));
      if (call.onMiss) wiring.nodesOf(call.onMiss.to).forEach((n) => targets.get(call.onMiss!.via)!.add(n));
    }
  }
  plan.clients.forEach((c) => {
    const caller = wiring.callerOf(c.name);
    if (caller !== undefined) wiring.entryNodeByKind.forEach((n) => targets.get(caller)!.add(n));
  });
  return targets;
}

/**
 * A private host named after the group: TIME_WAIT is counted (Linux's 60 s) but ports are
 * unlimited. A port limit is a property of a machine the topology names (`host`), not a default
 * an abstract caller hop trips over once ~28k of its calls queue.
 */
function privateHost(wiring: Wiring, group: string): HostState {
  const defaults = HostSchema.parse({});
  const name = wiring.has(hostKind, group) ? `${group}-host` : group;
  const host = new HostState(name, Number.POSITIVE_INFINITY, defaults.timeWait, wiring.ctx.sim, wiring.ctx.totals);
  wiring.add(hostKind, host, hostComponent(host));
  return host;
}

/** Connection counts across every pool and host, and calls waiting for a connection. */
function connectionTotals(wiring: Wiring, groups: readonly ClientGroupModel[]): GaugeSource {
  const totals = wiring.ctx.totals;
  return {
    gaugeSpecs: [SHARED_GAUGES.openConnections, IDLE_CONNECTIONS, TIME_WAIT_CONNECTIONS, CHECKOUT_WAITERS],
    gauges(into) {
      into[SHARED_GAUGES.openConnections.name] = totals.open;
      into[IDLE_CONNECTIONS.name] = totals.idle;
      into[TIME_WAIT_CONNECTIONS.name] = totals.timeWait;
      let waiting = 0;
      for (const g of groups) waiting += g.stats.waiting;
      into[CHECKOUT_WAITERS.name] = waiting;
    },
  };
}

/** A group's node ejection and hot-key cache: listed ahead of every group's rates. */
function clientSideCacheGauges(group: ClientGroupModel): GaugeSource {
  const markedDown = gaugeKey(MARKED_DOWN, group.name);
  const localHits = gaugeKey(HOT_KEY_LOCAL_HITS, group.name);
  return {
    gaugeSpecs: [...(group.markDown !== null ? [MARKED_DOWN] : []), ...(group.hotKeys !== null ? [HOT_KEY_LOCAL_HITS] : [])],
    gauges(into) {
      if (group.markDown !== null) into[markedDown] = group.markedDownNow();
      if (group.hotKeys !== null) into[localHits] = group.hotKeys.stats.localHits;
    },
  };
}

function groupComponent(group: ClientGroupModel, wiring: Wiring): ModelComponent<ClientGroupDetails> {
  const sim = wiring.ctx.sim;
  const keys = {
    attempts: gaugeKey(ATTEMPTS_RPS, group.name),
    retries: gaugeKey(RETRIES_RPS, group.name),
    dialErrors: gaugeKey(DIAL_ERRORS, group.name),
    open: gaugeKey(SHARED_GAUGES.openConnections, group.name),
    idle: gaugeKey(IDLE_CONNECTIONS, group.name),
    waiters: gaugeKey(CHECKOUT_WAITERS, group.name),
  };
  let lastAttempts = 0;
  let lastRetries = 0;
  return {
    name: group.name,
    gaugeSpecs: [ATTEMPTS_RPS, RETRIES_RPS, DIAL_ERRORS, ...(group.pooled ? [SHARED_GAUGES.openConnections, IDLE_CONNECTIONS, CHECKOUT_WAITERS] : [])],
    gauges(into, sinceUs) {
      if (group.pooled) poolGauges(group, into, keys);
      // Attempts and retries per second since the previous sample (offered load vs attempts).
      const stats = group.stats;
      if (!group.pooled && stats.retries === 0) return;
      const seconds = (sim.nowUs - sinceUs) / 1e6;
      into[keys.attempts] = seconds > 0 ? (stats.attempts - lastAttempts) / seconds : 0;
      into[keys.retries] = seconds > 0 ? (stats.retries - lastRetries) / seconds : 0;
      if (stats.dialErrors > 0) into[keys.dialErrors] = stats.dialErrors;
      lastAttempts = stats.attempts;
      lastRetries = stats.retries;
    },
    details: () => ({
      ...group.stats,
      ...(group.hotKeys ? { hotKeys: { ...group.hotKeys.stats, namedKeys: { ...group.hotKeys.stats.namedKeys } } } : {}),
      instances: group.instances,
      pools: group.pools.length,
      openHighWaterPerPool: group.pools.reduce((m, pool) => Math.max(m, pool.openHighWater), 0),
      maxOpen: finiteOrInf(group.pools.length > 0 ? group.maxOpenEver : Number.POSITIVE_INFINITY),
    }),
  };
}

/** The group's pools now, summed once per interval: which caller's pool filled up, not only the run-wide totals. */
function poolGauges(group: ClientGroupModel, into: Record<string, number>, keys: { open: string; idle: string; waiters: string }): void {
  let open = 0;
  let idle = 0;
  for (const pool of group.pools) {
    open += pool.open;
    idle += pool.idle;
  }
  into[keys.open] = open;
  into[keys.idle] = idle;
  into[keys.waiters] = group.stats.waiting;
}

/** Infinity as "inf", the way topologies write it (JSON has no Infinity). */
function finiteOrInf(n: number): number | 'inf' {
  return Number.isFinite(n) ? n : 'inf';
}
