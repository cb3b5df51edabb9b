import type { CacheNode } from '../components/cache/cache.ts';
import type { ClientGroupModel } from '../components/client-group/client-group.ts';

/** One entry of a service's `calls`, resolved to runtime objects at build time. */
export interface CallPlan {
  group: ClientGroupModel;
  /** Set when the call goes to a cache: the node then depends on the key's shard. */
  cache: CacheNode | null;
  /** Destination node for service and database calls. */
  node: number;
  /** kinds[k] = 1 when requests of kind k make the call; null = every kind. */
  kinds: Uint8Array | null;
  /** One call per key, at most the group's (mutable) fanoutLimit in flight. */
  perItem: boolean;
  onMiss: { group: ClientGroupModel; node: number; readThrough: boolean } | null;
  fill: boolean;
  /** A write: a database makes a new version of the key; a cache sets it. */
  write: boolean;
  /** Skipped when its pool is disabled or exhausted; its failures do not fail the request. */
  optional: boolean;
}

/** The destination node of a call for `key`. */
export function planNode(plan: CallPlan, key: number): number {
  return plan.cache === null ? plan.node : plan.cache.nodeOfKey(key);
}
