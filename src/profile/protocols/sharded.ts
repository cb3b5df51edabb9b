/* What a client-side sharded cache protocol reports (memcached; a Redis one would too): hits and the keys per server. */

/** The keys each server was sent, their share, and how uneven the shares are. */
export interface ShardLoad {
  shards: { server: string; keys: number; share: number }[];
  /** Max shard share ÷ fair share: 1 is even; 2 means the busiest shard takes twice its fair load. */
  shardSkew: number;
}

/** hits ÷ (hits + misses), 0 with neither: taken again from summed counts when reports merge. */
export function hitRatioOf(hits: number, misses: number): number {
  return hits + misses > 0 ? hits / (hits + misses) : 0;
}

/** Keys per server as shards with their share of the total, and the skew. */
export function shardLoad(servers: readonly string[], keys: readonly number[]): ShardLoad {
  const total = keys.reduce((a, b) => a + b, 0);
  const shares = keys.map((k) => (total > 0 ? k / total : 0));
  let maxShare = 0;
  for (const share of shares) maxShare = Math.max(maxShare, share);
  return { shards: servers.map((server, s) => ({ server, keys: keys[s]!, share: shares[s]! })), shardSkew: total > 0 ? maxShare * shares.length : 0 };
}
