import type { TimelineEvent } from '../../profile/topology/index.ts';
import { shardListHas } from '../../profile/topology/shards.ts';
import { defineGauge, gaugeKey } from '../../recorder/gauges.ts';
import type { GaugeSource } from '../core/component.ts';
import { NetworkLink } from '../core/network.ts';
import type { TimelinePlayer } from './timeline.ts';
import type { Wiring } from '../core/wiring.ts';

type NetworkEvent = Extract<TimelineEvent, { type: 'network' }>;

/** The network element of a `network` event, in front of the target's nodes (a cache's listed shards). */
export function networkLink(wiring: Wiring, event: NetworkEvent): NetworkLink {
  const base = wiring.firstNode(event.to);
  const shards = event.shards;
  const nodes = wiring.nodesOf(event.to).filter((node) => shards === undefined || shardListHas(shards, node - base));
  return new NetworkLink(wiring.ctx, nodes, event.mode, event.delay);
}

const NETWORK_DROPPED = defineGauge('networkDropped', 'count', 'faults', 'requests a network element dropped, since the start', 'run');
const NETWORK_ORPHANS = defineGauge('networkOrphans', 'count', 'faults', 'requests a network element delivered after their caller gave up, since the start', 'run');

/** Per `network` event (keyed by its target and index): what it dropped and what it delivered too late. */
export function networkGauges(timeline: TimelinePlayer, events: readonly TimelineEvent[]): GaugeSource[] {
  return [...timeline.links].map(([index, link]) => {
    const suffix = `${(events[index] as NetworkEvent).to}.${index}`;
    const dropped = gaugeKey(NETWORK_DROPPED, suffix);
    const orphans = gaugeKey(NETWORK_ORPHANS, suffix);
    return {
      gaugeSpecs: [NETWORK_DROPPED, NETWORK_ORPHANS],
      gauges(into: Record<string, number>) {
        into[dropped] = link.stats.dropped;
        into[orphans] = link.stats.deliveredOrphaned;
      },
    };
  });
}
