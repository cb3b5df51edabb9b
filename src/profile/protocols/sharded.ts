import { canonicalHost, TargetError } from '../target.ts';
import { addCounts, portOf, sumOf, type ServerAddress } from './address.ts';

/* What a client-side sharded cache protocol (memcached, Redis) is given and reports alike: a list of servers; hits and the keys per server. */

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

/** The fields every sharded cache's transport report shares. */
export interface ShardedCounts extends ShardLoad {
  /** Keys the reads found (hits) and did not (misses); a multi-key read counts each key. Writes are neither. */
  hits: number;
  misses: number;
  hitRatio: number;
  connects: number;
  /** Connections closed because the server broke the protocol (a bad frame, a reply nobody asked for). */
  protocolErrors: number;
  /** Error answers by the protocol's name for them: each failed its request. */
  serverErrors: Record<string, number>;
}

/** `host:port[,host:port…]` as servers, each host canonical as the guard judges it: the host it approved is the host dialled (127.0.0.1. is 127.0.0.1, not a DNS name). @throws TargetError */
export function parseServers(text: string, list: string, forms: string): ServerAddress[] {
  if (list.trim() === '') throw new TargetError(text, `no servers; expected ${forms}`);
  return list.split(',').map((part) => {
    const match = /^([^:\s/,[\]]+|\[[^\]\s]+\]):(\d+)$/.exec(part.trim());
    if (!match) throw new TargetError(text, `expected host:port, got "${part}"`);
    return { host: canonicalHost(match[1]!), port: portOf(text, match[2]!) };
  });
}

/** Reports of one target from worker threads or segments as one: counts summed, ratio and shares taken again from the sums. */
export function mergeShardedCounts(reports: readonly ShardedCounts[]): ShardedCounts {
  const hits = sumOf(reports, (r) => r.hits);
  const misses = sumOf(reports, (r) => r.misses);
  const servers = reports[0]!.shards.map((s) => s.server);
  const keys = servers.map((server) => sumOf(reports, (r) => r.shards.find((s) => s.server === server)?.keys ?? 0));
  return {
    hits,
    misses,
    hitRatio: hitRatioOf(hits, misses),
    ...shardLoad(servers, keys),
    connects: sumOf(reports, (r) => r.connects),
    protocolErrors: sumOf(reports, (r) => r.protocolErrors),
    serverErrors: addCounts(reports.map((r) => r.serverErrors)),
  };
}
