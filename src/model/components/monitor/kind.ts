import { defineGauge, gaugeKey } from '../../../recorder/gauges.ts';
import { cacheKind } from '../cache/kind.ts';
import type { ModelComponent } from '../../core/component.ts';
import type { ComponentKind } from '../../core/wiring.ts';
import { HealthMonitor, type MonitorStats } from './monitor.ts';

const MONITOR_RESTARTS = defineGauge('monitorRestarts', 'count', 'faults', 'shards a health-check monitor restarted, since the start', 'run');
const FAILING_SHARDS = defineGauge('failingShards', 'count', 'faults', 'shards whose last health-check probe failed, at the sample');

/** Health-check monitors over cache shards (built after the caches they probe). */
export const monitorKind: ComponentKind<HealthMonitor> = {
  section: 'monitors',
  after: [cacheKind],
  build(wiring) {
    for (const [name, spec] of Object.entries(wiring.topology.monitors)) {
      const monitor = new HealthMonitor(wiring.ctx, name, spec, wiring.get(cacheKind, spec.cache));
      wiring.add(monitorKind, monitor, monitorComponent(monitor));
    }
  },
};

function monitorComponent(monitor: HealthMonitor): ModelComponent<MonitorStats> {
  const restarts = gaugeKey(MONITOR_RESTARTS, monitor.name);
  const failing = gaugeKey(FAILING_SHARDS, monitor.name);
  return {
    name: monitor.name,
    gaugeSpecs: [MONITOR_RESTARTS, FAILING_SHARDS],
    gauges(into) {
      into[restarts] = monitor.stats.restarts;
      into[failing] = monitor.failingNow();
    },
    details: () => ({ ...monitor.stats }),
  };
}
