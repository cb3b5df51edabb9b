import type { Plan } from '../../schedule/types.ts';
import type { Topology } from '../../profile/topology/index.ts';
import { cacheKind } from '../components/cache/kind.ts';
import { clientGroupKind } from '../components/client-group/kind.ts';
import { databaseKind } from '../components/database/kind.ts';
import { BUILD_TIE_BREAK, COMPONENT_KINDS, GAUGE_ORDER } from '../components/registry.ts';
import { serviceKind } from '../components/service/kind.ts';
import { buildOrder } from '../core/build-order.ts';
import type { GaugeSource, ModelComponent } from '../core/component.ts';
import type { ModelContext, ModelNode } from '../core/context.ts';
import type { Caller } from '../core/records.ts';
import { type ComponentKind, Wiring } from '../core/wiring.ts';
import { networkGauges, networkLink } from './network-wiring.ts';
import { TimelinePlayer } from './timeline.ts';

/** Every runtime object of a topology, wired for one run. */
export interface BuiltModel {
  wiring: Wiring;
  /** Entry node per `Plan.kinds` index. */
  entryNodeByKind: Int32Array;
  /** Caller group per `Plan.clients` index (an unpooled direct group when the topology has none). */
  callerByClient: Caller[];
  /** Every gauge source, in the order of an interval's gauges. */
  gaugeSources: GaugeSource[];
  /** Components per details section, in the order of the run's details. */
  sections: { section: string; components: readonly ModelComponent[] }[];
  warnings: string[];
}

/**
 * Numbers the nodes (the unit of a port table and of a pool: one per service and database, one per
 * cache shard slot), builds every registered kind after the kinds it declares (today's order
 * breaking ties, so handler ids stay what they were), then the timeline and the node table.
 */
export function buildModel(ctx: ModelContext, topology: Topology, plan: Plan): BuiltModel {
  const wiring = new Wiring(ctx, topology, plan, COMPONENT_KINDS);
  for (const kind of buildOrder(COMPONENT_KINDS, BUILD_TIE_BREAK)) kind.build(wiring);
  const timeline = new TimelinePlayer(ctx.sim, topology.timeline, {
    cache: (name) => wiring.get(cacheKind, name),
    service: (name) => wiring.get(serviceKind, name),
    group: (name) => wiring.get(clientGroupKind, name),
    database: (name) => wiring.get(databaseKind, name),
    link: (event) => networkLink(wiring, event),
  });
  for (const kind of COMPONENT_KINDS) if (kind.nodeSlots !== undefined) answerForNodes(ctx, wiring, kind);
  return {
    wiring,
    entryNodeByKind: wiring.entryNodeByKind,
    callerByClient: wiring.callerByClient,
    gaugeSources: [...GAUGE_ORDER.flatMap((kind) => wiring.gaugeSources(kind)), ...networkGauges(timeline, topology.timeline)],
    sections: COMPONENT_KINDS.map((kind) => ({ section: kind.section, components: wiring.components(kind) })),
    warnings: wiring.warnings,
  };
}

/** ctx.nodes[i] answers for node i: each of the kind's components for every node it takes. */
function answerForNodes(ctx: ModelContext, wiring: Wiring, kind: ComponentKind): void {
  for (const component of wiring.all(kind)) {
    const base = wiring.firstNode(component.name);
    for (let s = 0; s < wiring.nodeSlots(component.name); s++) ctx.nodes[base + s] = component as unknown as ModelNode;
  }
}
