import { Rng, deriveSeed } from '../../schedule/rng.ts';
import { createSampler } from '../../schedule/sample.ts';
import type { Plan } from '../../schedule/types.ts';
import { ClientGroupSchema, HostSchema, type Topology } from '../topology.ts';
import { CacheNode } from './cache.ts';
import { CallFlow } from './call-flow.ts';
import type { CallPlan } from './call-plan.ts';
import { ClientGroupModel } from './client-group.ts';
import type { ModelContext } from './context.ts';
import { DatabaseNode } from './database.ts';
import { HostState } from './host.ts';
import { ProcessState } from './process.ts';
import { ServiceNode } from './service.ts';
import { shardSlots, TimelinePlayer } from './timeline.ts';

/** Every runtime object of a topology, wired for one run. */
export interface BuiltModel {
  flow: CallFlow;
  services: ServiceNode[];
  caches: CacheNode[];
  databases: DatabaseNode[];
  groups: ClientGroupModel[];
  hosts: HostState[];
  /** Entry node per `Plan.kinds` index. */
  entryNodeByKind: Int32Array;
  /** Caller group per `Plan.clients` index (an unpooled direct group when the topology has none). */
  callerByClient: ClientGroupModel[];
  warnings: string[];
}

type NodeRef = { kind: 'service'; service: string } | { kind: 'cache'; cache: string } | { kind: 'database'; database: string };

/**
 * Numbers the nodes (services, then every cache shard, then databases — the unit of a port table
 * and of a pool), builds hosts, client groups with their pools, components with their own seeded
 * streams, and resolves every call entry. Topology names become indexes here, once.
 */
export function buildModel(ctx: ModelContext, topology: Topology, plan: Plan): BuiltModel {
  const warnings: string[] = [];
  const rng = (label: string) => new Rng(deriveSeed(ctx.seed, `model:${label}`));
  const nodeOf = new Map<string, number>();
  let nodeCount = 0;
  for (const name of Object.keys(topology.services)) nodeOf.set(name, nodeCount++);
  const cacheBase = new Map<string, number>();
  const cacheSlots = new Map<string, number>();
  for (const [name, spec] of Object.entries(topology.caches)) {
    cacheBase.set(name, nodeCount);
    cacheSlots.set(name, shardSlots(name, spec.shards, topology.timeline));
    nodeCount += cacheSlots.get(name)!;
  }
  for (const name of Object.keys(topology.databases)) nodeOf.set(name, nodeCount++);
  const refOf = (name: string): NodeRef =>
    topology.services[name] ? { kind: 'service', service: name } : topology.caches[name] ? { kind: 'cache', cache: name } : { kind: 'database', database: name };
  const nodesOf = (name: string): number[] => {
    const base = cacheBase.get(name);
    if (base === undefined) return [nodeOf.get(name)!];
    return Array.from({ length: cacheSlots.get(name)! }, (_, s) => base + s);
  };

  // Entry per kind and caller per client.
  const entryOfKind = (kind: string) => (typeof topology.entry === 'string' ? topology.entry : (topology.entry[kind] ?? topology.entry.default!));
  const entryNodeByKind = Int32Array.from(plan.kinds, (kind) => nodeOf.get(entryOfKind(kind))!);
  const callerOfClient = (client: string): string | undefined =>
    topology.caller === undefined ? undefined : typeof topology.caller === 'string' ? topology.caller : (topology.caller[client] ?? topology.caller.default);
  if (typeof topology.entry !== 'string') {
    for (const kind of Object.keys(topology.entry)) if (kind !== 'default' && !plan.kinds.includes(kind)) warnings.push(`entry.${kind}: no request of kind "${kind}" in the profile`);
  }
  if (topology.caller !== undefined && typeof topology.caller !== 'string') {
    const clients = plan.clients.map((c) => c.name);
    for (const client of Object.keys(topology.caller)) if (client !== 'default' && !clients.includes(client)) warnings.push(`caller.${client}: no client "${client}" in the profile`);
  }

  // Destination nodes per group.
  const targets = new Map<string, Set<number>>(Object.keys(topology.clientGroups).map((g) => [g, new Set<number>()]));
  for (const spec of Object.values(topology.services)) {
    for (const call of spec.calls) {
      nodesOf(call.to).forEach((n) => targets.get(call.via)!.add(n));
      if (call.onMiss) nodesOf(call.onMiss.to).forEach((n) => targets.get(call.onMiss!.via)!.add(n));
    }
  }
  plan.clients.forEach((c) => {
    const caller = callerOfClient(c.name);
    if (caller !== undefined) entryNodeByKind.forEach((n) => targets.get(caller)!.add(n));
  });

  const hostByName = new Map<string, HostState>();
  for (const [name, spec] of Object.entries(topology.hosts)) hostByName.set(name, new HostState(name, spec.portRange * spec.sourceAddresses, spec.timeWait, ctx.sim, ctx.totals));
  const groupByName = new Map<string, ClientGroupModel>();
  for (const [name, spec] of Object.entries(topology.clientGroups)) {
    let host = spec.host === undefined ? undefined : hostByName.get(spec.host);
    if (!host) {
      // A private host named after the group, with Linux defaults.
      const defaults = HostSchema.parse({});
      const hostName = hostByName.has(name) ? `${name}-host` : name;
      host = new HostState(hostName, defaults.portRange, defaults.timeWait, ctx.sim, ctx.totals);
      hostByName.set(hostName, host);
    }
    groupByName.set(name, new ClientGroupModel(ctx, name, spec, [...targets.get(name)!].sort((a, b) => a - b), nodeCount, host));
  }
  const direct = new ClientGroupModel(ctx, '(direct)', ClientGroupSchema.parse({}), [...new Set(entryNodeByKind)], nodeCount, null);
  const callerByClient = plan.clients.map((c) => {
    const caller = callerOfClient(c.name);
    return caller === undefined ? direct : groupByName.get(caller)!;
  });

  if (Object.values(topology.caches).some((c) => c.copies)) ctx.keyVersion = new Uint32Array(plan.keyspace.count + plan.keyspace.hotKeys.length);
  const flow = new CallFlow(ctx);
  ctx.flow = flow;
  const caches = Object.entries(topology.caches).map(([name, spec]) => {
    const r = rng(`cache:${name}`);
    // Value sizes draw from their own stream, so turning the NIC on does not shift service times.
    const values = rng(`cache:${name}:values`);
    const valueSize = createSampler(spec.valueSize, values);
    const hotValueSize = spec.hotKeyValueSize ? createSampler(spec.hotKeyValueSize, values) : valueSize;
    return new CacheNode(ctx, name, spec, cacheBase.get(name)!, cacheSlots.get(name)!, plan.keyspace, createSampler(spec.serviceTime, r), valueSize, hotValueSize, rng(`cache:${name}:loss`));
  });
  const cacheByName = new Map(caches.map((c) => [c.name, c]));
  const databases = Object.entries(topology.databases).map(([name, spec]) => {
    const r = rng(`database:${name}`);
    return new DatabaseNode(ctx, name, spec.concurrency, spec.queue.limit, spec.slowdown, createSampler(spec.latency, r), spec.rateLimit);
  });

  const entryServices = new Set(plan.kinds.map(entryOfKind));
  const services = Object.entries(topology.services).map(([name, spec]) => {
    const r = rng(`service:${name}`);
    const calls = spec.calls.map((call, i): CallPlan => {
      const to = refOf(call.to);
      const group = groupByName.get(call.via)!;
      let kinds: Uint8Array | null = null;
      if (call.kinds) {
        kinds = new Uint8Array(plan.kinds.length);
        for (const kind of call.kinds) {
          const k = plan.kinds.indexOf(kind);
          if (k >= 0) kinds[k] = 1;
          else warnings.push(`services.${name}.calls[${i}].kinds: no request of kind "${kind}" in the profile`);
        }
      }
      return {
        group,
        cache: to.kind === 'cache' ? cacheByName.get(to.cache)! : null,
        node: to.kind === 'cache' ? -1 : nodeOf.get(call.to)!,
        kinds,
        perItem: call.perItem,
        onMiss: call.onMiss ? { group: groupByName.get(call.onMiss.via)!, node: nodeOf.get(call.onMiss.to)!, readThrough: call.onMiss.readThrough } : null,
        fill: call.onMiss !== undefined && call.fill,
        write: call.write,
      };
    });
    return new ServiceNode(ctx, flow, {
      name,
      workers: spec.workers,
      queueLimit: spec.queue.limit,
      lifo: spec.queue.discipline === 'lifo',
      serviceTime: createSampler(spec.serviceTime, r),
      itemTime: spec.itemTime ? createSampler(spec.itemTime, r) : null,
      calls,
      isEntry: entryServices.has(name),
      cpus: spec.cpus,
      dropAfterUs: spec.queue.dropAfter,
      process:
        spec.memory || spec.gc || spec.errorLog || spec.threads > 0
          ? new ProcessState(spec.threads, spec.memory ?? null, spec.gc?.cost ?? 0, spec.errorLog?.writeTime ?? 0, spec.errorLog?.every ?? 1)
          : null,
      restartDelayUs: spec.memory?.restartDelay ?? 0,
      ownGroups: [...new Set(spec.calls.flatMap((c) => [c.via, ...(c.onMiss ? [c.onMiss.via] : [])]))].map((g) => groupByName.get(g)!),
    });
  });

  // ctx.nodes[i] answers for node i.
  for (const s of services) ctx.nodes[nodeOf.get(s.name)!] = s;
  for (const c of caches) for (let s = 0; s < c.slots; s++) ctx.nodes[c.nodeBase + s] = c;
  ctx.connections = new Int32Array(nodeCount);
  ctx.connectionLimit = new Float64Array(nodeCount).fill(Number.POSITIVE_INFINITY);
  for (const c of caches) ctx.connectionLimit.fill(topology.caches[c.name]!.connectionLimit, c.nodeBase, c.nodeBase + c.slots);
  const serviceByName = new Map(services.map((s) => [s.name, s]));
  new TimelinePlayer(ctx.sim, topology.timeline, {
    cache: (name) => cacheByName.get(name)!,
    service: (name) => serviceByName.get(name)!,
    group: (name) => groupByName.get(name)!,
    database: (name) => databases.find((d) => d.name === name)!,
  });
  for (const d of databases) ctx.nodes[nodeOf.get(d.name)!] = d;

  return {
    flow,
    services,
    caches,
    databases,
    groups: [...groupByName.values()],
    hosts: [...hostByName.values()],
    entryNodeByKind,
    callerByClient,
    warnings,
  };
}
