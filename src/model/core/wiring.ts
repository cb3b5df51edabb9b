import { Rng, deriveSeed } from '../../schedule/rng.ts';
import type { Plan } from '../../schedule/types.ts';
import type { Topology } from '../../profile/topology/index.ts';
import type { ClientGroupModel } from '../components/client-group/client-group.ts';
import type { ComponentKind, GaugeSource, ModelComponent } from '../components/component.ts';
import { CallFlow } from './call-flow.ts';
import type { ModelContext } from './context.ts';
import { ServerConnections } from './server-connections.ts';

interface Built<R> {
  byName: Map<string, R>;
  components: ModelComponent[];
  /** Run-wide or per-part gauges listed ahead of the kind's components. */
  ahead: GaugeSource[];
}

/**
 * What kinds build against: the run's context, the topology and plan, node numbers, the entry and
 * caller of each request, and the components of kinds built earlier, by name. Topology names become
 * indexes here, once.
 */
export class Wiring {
  readonly warnings: string[] = [];
  readonly flow: CallFlow;
  /** Entry node per `Plan.kinds` index. */
  readonly entryNodeByKind: Int32Array;
  /** Caller group per `Plan.clients` index (an unpooled direct group when the topology has none); set by the client-group kind. */
  callerByClient: ClientGroupModel[] = [];
  /** Destination nodes: every node-taking kind's components, in registry order. */
  readonly nodeCount: number;
  private readonly firstNodeOf = new Map<string, number>();
  private readonly slotsOf = new Map<string, number>();
  private readonly built = new Map<ComponentKind, Built<unknown>>();

  constructor(
    readonly ctx: ModelContext,
    readonly topology: Topology,
    readonly plan: Plan,
    kinds: readonly ComponentKind[],
  ) {
    let nodeCount = 0;
    for (const kind of kinds) {
      if (kind.nodeSlots === undefined) continue;
      for (const name of Object.keys(topology[kind.section])) {
        const slots = kind.nodeSlots(name, this);
        this.firstNodeOf.set(name, nodeCount);
        this.slotsOf.set(name, slots);
        nodeCount += slots;
      }
    }
    this.nodeCount = nodeCount;
    ctx.connections = new Int32Array(nodeCount);
    ctx.connectionLimit = new Float64Array(nodeCount).fill(Number.POSITIVE_INFINITY);
    ctx.serverConns = new ServerConnections(ctx.connections, ctx.connectionLimit, ctx.nodes);
    this.entryNodeByKind = Int32Array.from(plan.kinds, (kind) => this.firstNode(this.entryOf(kind)));
    this.warnUnusedRoutes();
    this.flow = new CallFlow(ctx);
    ctx.flow = this.flow;
  }

  /** A component's own random stream, derived from the run's seed and its label. */
  rng(label: string): Rng {
    return new Rng(deriveSeed(this.ctx.seed, `model:${label}`));
  }

  /** The service receiving requests of `requestKind`. */
  entryOf(requestKind: string): string {
    const entry = this.topology.entry;
    return typeof entry === 'string' ? entry : (entry[requestKind] ?? entry.default!);
  }

  /** The client group through which a profile client calls the entry; undefined: directly. */
  callerOf(client: string): string | undefined {
    const caller = this.topology.caller;
    return caller === undefined ? undefined : typeof caller === 'string' ? caller : (caller[client] ?? caller.default);
  }

  /** The node of a service or database, or of shard 0 of a cache. */
  firstNode(name: string): number {
    return this.firstNodeOf.get(name)!;
  }

  /** Nodes a component takes (a cache: one per shard slot). */
  nodeSlots(name: string): number {
    return this.slotsOf.get(name)!;
  }

  nodesOf(name: string): number[] {
    const base = this.firstNode(name);
    return Array.from({ length: this.nodeSlots(name) }, (_, s) => base + s);
  }

  add<R extends { readonly name: string }>(kind: ComponentKind<R>, runtime: R, component: ModelComponent): void {
    const built = this.builtOf(kind);
    built.byName.set(runtime.name, runtime);
    built.components.push(component);
  }

  /** A gauge source listed with `kind`, ahead of its components: run-wide figures, or a part of a component. */
  addGaugesAhead(kind: ComponentKind, source: GaugeSource): void {
    this.builtOf(kind).ahead.push(source);
  }

  has(kind: ComponentKind, name: string): boolean {
    return this.builtOf(kind).byName.has(name);
  }

  get<R extends { readonly name: string }>(kind: ComponentKind<R>, name: string): R {
    const runtime = this.builtOf<R>(kind).byName.get(name);
    if (runtime === undefined) throw new Error(`model bug: no ${kind.section} "${name}" built yet`);
    return runtime;
  }

  all<R extends { readonly name: string }>(kind: ComponentKind<R>): R[] {
    return [...this.builtOf<R>(kind).byName.values()];
  }

  components(kind: ComponentKind): readonly ModelComponent[] {
    return this.builtOf(kind).components;
  }

  gaugeSources(kind: ComponentKind): GaugeSource[] {
    const built = this.builtOf(kind);
    return [...built.ahead, ...built.components];
  }

  private builtOf<R>(kind: ComponentKind): Built<R> {
    let built = this.built.get(kind);
    if (built === undefined) {
      built = { byName: new Map(), components: [], ahead: [] };
      this.built.set(kind, built);
    }
    return built as Built<R>;
  }

  private warnUnusedRoutes(): void {
    const { entry, caller } = this.topology;
    if (typeof entry !== 'string') {
      for (const kind of Object.keys(entry))
        if (kind !== 'default' && !this.plan.kinds.includes(kind)) this.warnings.push(`entry.${kind}: no request of kind "${kind}" in the profile`);
    }
    if (caller !== undefined && typeof caller !== 'string') {
      const clients = this.plan.clients.map((c) => c.name);
      for (const client of Object.keys(caller)) if (client !== 'default' && !clients.includes(client)) this.warnings.push(`caller.${client}: no client "${client}" in the profile`);
    }
  }
}
