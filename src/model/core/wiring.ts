import { Rng, deriveSeed } from '../../schedule/rng.ts';
import type { Plan } from '../../schedule/types.ts';
import type { Topology } from '../../profile/topology/index.ts';
import type { GaugeSource, ModelComponent } from './component.ts';
import { CallFlow } from './call-flow.ts';
import type { ModelContext } from './context.ts';
import type { Caller, KeyedDestination } from './records.ts';
import { ServerConnections } from './server-connections.ts';

/** The topology sections a kind can be built from: the ones keyed by component name. */
export type Section = { [K in keyof Topology]-?: Topology[K] extends Record<string, object> ? (Topology[K] extends readonly unknown[] ? never : K) : never }[keyof Topology];

/**
 * One kind of component (service, cache, …): builds its runtime objects `R` from its topology
 * section, says what it is built after and what calls it accepts, and how results see it. Adding a
 * kind is a folder with one of these plus its place in the registry's lists; nothing else reaches
 * into a kind.
 */
export interface ComponentKind<_R extends { readonly name: string } = { readonly name: string }> {
  /** Its topology section, and its key in the run's details. */
  readonly section: Section;
  /** Destination nodes (call targets) each component of the section takes; kinds nobody calls leave it out. */
  nodeSlots?(name: string, wiring: Wiring): number;
  /**
   * What a service's calls may ask of its components, with nodeSlots: `call` (a call's `to`) and
   * `miss` (an onMiss `to`: the read a cache miss falls back to); `Wiring.callee` holds calls to
   * it. The profile's topology rules list the same (a test holds them together).
   */
  readonly accepts?: readonly CallRole[];
  /** Set when the node of a call depends on its key (a cache's shards): the component that routes it. */
  keyed?(name: string, wiring: Wiring): KeyedDestination;
  /** The kinds whose components it looks up while building: they are built before it. */
  readonly after?: readonly ComponentKind[];
  /** Builds every component of the section into `wiring` (`wiring.add`), looking up the kinds it builds after. */
  build(wiring: Wiring): void;
}

/** How a service's call names a component: as its destination, or as the fallback read of a cache miss. */
export type CallRole = 'call' | 'miss';

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
  callerByClient: Caller[] = [];
  /** Destination nodes: every node-taking kind's components, in registry order. */
  readonly nodeCount: number;
  private readonly firstNodeOf = new Map<string, number>();
  private readonly slotsOf = new Map<string, number>();
  /** The kind of each component that takes calls, by name (names are unique across those sections). */
  private readonly calleeKindOf = new Map<string, ComponentKind>();
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
        this.calleeKindOf.set(name, kind);
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

  /**
   * Where a service's call to `name` goes as `role`: its first node, and the keyed destination that
   * routes it by key (a cache), else null. Its kind says what it accepts.
   * @throws Error (a model bug) when the kind does not accept the role: the profile let through what no kind takes
   */
  callee(name: string, role: CallRole): { node: number; keyed: KeyedDestination | null } {
    const kind = this.calleeKindOf.get(name);
    if (kind?.accepts?.includes(role) !== true) throw new Error(`model bug: "${name}" takes no ${role === 'miss' ? 'read a cache miss falls back to' : 'call'}`);
    return { node: this.firstNode(name), keyed: kind.keyed?.(name, this) ?? null };
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
