import { z } from 'zod';
import { CacheSchema } from './cache.ts';
import { ClientGroupSchema, HostSchema } from './client-group.ts';
import { componentName } from './common.ts';
import { DatabaseSchema } from './database.ts';
import { MonitorSchema } from './monitor.ts';
import { addReferenceIssues } from './references.ts';
import { ServiceSchema } from './service.ts';
import { TimelineEventSchema } from './timeline.ts';

export { CacheSchema, HASH_NAMES, type Cache, type HashName } from './cache.ts';
export { ClientGroupSchema, HostSchema, PoolSchema, RetriesSchema, type ClientGroup, type Host, type Pool, type Retries } from './client-group.ts';
export { QueueSchema, type Queue } from './common.ts';
export { DatabaseSchema, type Database } from './database.ts';
export { MonitorSchema, type Monitor } from './monitor.ts';
export { CallSchema, ServiceSchema, type Call, type Service } from './service.ts';
export { TimelineEventSchema, type TimelineEvent } from './timeline.ts';

/** A name, or a map with a `default` plus overrides; used by `entry` (per request kind) and `caller` (per profile client). */
function nameOrMap(what: string, keyedBy: string) {
  return z.union([componentName, z.record(z.string().min(1), componentName).meta({ description: `${what} per ${keyedBy}; the key \`default\` covers the rest.` })]);
}

const TopologyObject = z.strictObject({
  entry: nameOrMap('The service', 'request kind').meta({
    description: 'The service receiving user requests: a name, or a map request kind → service with a `default`.',
  }),
  caller: nameOrMap('The client group', 'profile client').optional().meta({
    description:
      'The client group through which the profile’s users call `entry` (their pool, timeout, retries): a name, or a map profile client → group with a `default`. Absent: requests enter the entry service directly, with no user-side timeout.',
  }),
  hosts: z.record(componentName, HostSchema).default({}).meta({ description: 'Machines whose kernel state (ports, TIME_WAIT) client groups share.' }),
  clientGroups: z.record(componentName, ClientGroupSchema).default({}).meta({ description: 'Callers: pools, timeouts, retries, fan-out limits.' }),
  services: z
    .record(componentName, ServiceSchema)
    .refine((s) => Object.keys(s).length > 0, 'expected at least one service')
    .meta({ description: 'Services: worker pools that make downstream calls.' }),
  caches: z.record(componentName, CacheSchema).default({}).meta({ description: 'Sharded look-aside caches.' }),
  databases: z.record(componentName, DatabaseSchema).default({}).meta({ description: 'Databases.' }),
  monitors: z.record(componentName, MonitorSchema).default({}).meta({ description: 'Health-check monitors that restart cache shards after failed probes.' }),
  timeline: z
    .array(TimelineEventSchema)
    .default([])
    .meta({ description: 'Things that happen during the run: shards added or removed, periodic capacity dips, an operator changing a setting.' }),
});

/** The shape before cross-reference checks (used by those checks). */
export type TopologyShape = z.output<typeof TopologyObject>;

/**
 * A model topology: data, not code. Components are added as new optional sections or fields (GC,
 * error-logging cost, restarts, CPU quota, ketama, NIC bandwidth, timeline events), so existing
 * topologies stay valid. The smallest valid topology is `{entry: api, services: {api: {workers: 8,
 * serviceTime: …}}}`.
 */
export const TopologySchema = TopologyObject.superRefine(addReferenceIssues).meta({
  title: 'stampede model topology',
  description: 'Services, caches, databases and the client groups that connect them.',
});
export type Topology = z.output<typeof TopologySchema>;
