import type { CacheNode } from './cache.ts';
import type { ClientGroupModel } from './client-group.ts';

/** One entry of a service's `calls`, resolved to runtime objects at build time. */
export interface CallPlan {
  group: ClientGroupModel;
  /** Set when the call goes to a cache: the node then depends on the key's shard. */
  cache: CacheNode | null;
  /** Destination node for service and database calls. */
  node: number;
  /** kinds[k] = 1 when requests of kind k make the call; null = every kind. */
  kinds: Uint8Array | null;
  perItem: boolean;
  /** Items of one request in flight at once (the group's fanoutLimit; 1 unless perItem). */
  fanoutLimit: number;
  onMiss: { group: ClientGroupModel; node: number } | null;
  fill: boolean;
}

/** The destination node of a call for `key`. */
export function planNode(plan: CallPlan, key: number): number {
  return plan.cache === null ? plan.node : plan.cache.nodeOfKey(key);
}
