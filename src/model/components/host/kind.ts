import { defineGauge, gaugeKey } from '../../../recorder/gauges.ts';
import type { ModelComponent } from '../../core/component.ts';
import type { ComponentKind } from '../../core/wiring.ts';
import { HostState } from './host.ts';

export const TIME_WAIT_CONNECTIONS = defineGauge('timeWaitConnections', 'count', 'connections', 'connections in TIME_WAIT (holding a port) at the sample');

export interface HostDetails {
  /** "inf" for a group's private host: port limits apply only on a host the topology names. */
  portRange: number | 'inf';
  timeWait: number;
  timeWaitHighWaterPerTuple: number;
  portsHighWaterPerTuple: number;
}

/** Machines whose kernel state (ports, TIME_WAIT) client groups share; a group without one gets a private host. */
export const hostKind: ComponentKind<HostState> = {
  section: 'hosts',
  build(wiring) {
    const { ctx } = wiring;
    for (const [name, spec] of Object.entries(wiring.topology.hosts)) {
      const host = new HostState(name, spec.portRange * spec.sourceAddresses, spec.timeWait, ctx.sim, ctx.totals);
      wiring.add(hostKind, host, hostComponent(host));
    }
  },
};

export function hostComponent(host: HostState): ModelComponent<HostDetails> {
  const key = gaugeKey(TIME_WAIT_CONNECTIONS, host.name);
  return {
    name: host.name,
    gaugeSpecs: [TIME_WAIT_CONNECTIONS],
    gauges(into) {
      into[key] = host.timeWaitTotal;
    },
    details: () => ({
      portRange: Number.isFinite(host.portRange) ? host.portRange : 'inf',
      timeWait: host.timeWaitTotal,
      timeWaitHighWaterPerTuple: host.timeWaitHighWater,
      portsHighWaterPerTuple: host.portsHighWater,
    }),
  };
}
