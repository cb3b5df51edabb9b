import type { Topology } from '../../topology/index.ts';
import { operationOfKind } from '../memcached/section.ts';
import type { ProtocolSpec } from '../spec.ts';

/* The model core: the profile's topology simulated in process on virtual time. Its driver is src/driver/model.ts. */

export interface ModelTarget {
  kind: 'model';
  text: string;
}

/** What the model reads of the profile: its topology (its only section, which the profile's schema holds). */
export interface ModelView {
  topology?: Topology | undefined;
}

/** The model target: it has no address, only its name. */
export const MODEL_TARGET: ModelTarget = { kind: 'model', text: 'model' };

/**
 * The model's in-flight bound: no cap of its own, so its state is sized by the plan — every request
 * at the peak rate in flight for this long (requests finish or time out within a second in every
 * shipped topology; a model whose queues grow without bound exceeds this), never more than the plan sends.
 */
const MODEL_LIFETIME_S = 1;

/** Connections one client instance keeps per server: the largest pool of the groups that call caches. */
function connectionsPerClient({ topology: t }: ModelView): number | undefined {
  if (t === undefined) return undefined;
  const caches = new Set(Object.keys(t.caches));
  const groups = Object.values(t.services).flatMap((s) => s.calls.filter((c) => caches.has(c.to)).map((c) => c.via));
  if (groups.length === 0) return undefined;
  return Math.max(...groups.map((g) => t.clientGroups[g]?.pool.maxOpen ?? Infinity));
}

/** Client groups through which the profile's users call the entry service. */
export function callerGroups(topology: Topology | undefined): string[] {
  const caller = topology?.caller;
  if (caller === undefined) return [];
  return typeof caller === 'string' ? [caller] : [...new Set(Object.values(caller))];
}

/** The instances of the caller groups (0 without one): the model's users call through them. */
function clientInstances({ topology }: ModelView): number {
  return callerGroups(topology).reduce((sum, g) => sum + (topology?.clientGroups[g]?.instances ?? 1), 0);
}

function shards(_target: ModelTarget, { topology }: ModelView): number | undefined {
  const caches = Object.values(topology?.caches ?? {});
  return caches.length === 0 ? undefined : Math.max(...caches.map((c) => c.shards));
}

export const MODEL: ProtocolSpec<ModelTarget, never, ModelView, Record<never, never>> = {
  name: 'model',
  forms: '"model"',
  schemes: [],
  parse: () => MODEL_TARGET,
  simulated: true,
  hosts: () => [],
  inFlightBound: (_profile, load) => Math.min(load.expectedRequests, load.peakRps * MODEL_LIFETIME_S),
  resolvesSecrets: false,
  refusesUnfitKeys: false,
  // A kind named after a memcached operation is that operation at the model's caches (src/model/core/ops.ts).
  realism: { connectionsPerClient, clientInstances, shards, writes: (_profile, kind) => !['get', 'gets'].includes(operationOfKind({}, kind)) },
  timeline: { events: new Set(['addShards', 'removeShards', 'restoreShards', 'flush', 'restart', 'latency', 'dip', 'set', 'blip', 'network', 'exec', 'shift']) },
};
