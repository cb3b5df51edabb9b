import { createSampler } from '../../../schedule/sample.ts';
import { defineGauge, gaugeKey } from '../../../recorder/gauges.ts';
import type { ModelComponent } from '../../core/component.ts';
import type { ComponentKind } from '../../core/wiring.ts';
import { DatabaseNode, type DatabaseStats } from './database.ts';

const DB_IN_FLIGHT = defineGauge('dbInFlight', 'count', 'queues', 'operations in the database (in service + queued) at the sample');

export type DatabaseDetails = DatabaseStats & { meanLatencyUs: number; outstanding: number };

export const databaseKind: ComponentKind<DatabaseNode> = {
  section: 'databases',
  nodeSlots: () => 1,
  accepts: ['call', 'miss'],
  build(wiring) {
    for (const [name, spec] of Object.entries(wiring.topology.databases)) {
      const latency = createSampler(spec.latency, wiring.rng(`database:${name}`));
      const database = new DatabaseNode(wiring.ctx, name, spec.concurrency, spec.queue.limit, spec.slowdown, latency, spec.rateLimit);
      wiring.add(databaseKind, database, databaseComponent(database));
    }
  },
};

function databaseComponent(database: DatabaseNode): ModelComponent<DatabaseDetails> {
  const key = gaugeKey(DB_IN_FLIGHT, database.name);
  return {
    name: database.name,
    gaugeSpecs: [DB_IN_FLIGHT],
    gauges(into) {
      into[key] = database.outstanding;
    },
    details: () => {
      const stats = database.stats;
      return { ...stats, meanLatencyUs: stats.completed > 0 ? stats.latencyUs / stats.completed : 0, outstanding: database.outstanding };
    },
  };
}
