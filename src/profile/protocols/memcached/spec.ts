import { canonicalHost, TargetError } from '../../target.ts';
import { addCounts, portOf, sumOf, type ServerAddress } from '../address.ts';
import { hitRatioOf, type ShardLoad, shardLoad } from '../sharded.ts';
import type { ProtocolSpec, SettingsOf } from '../spec.ts';
import { MEMCACHED_SECTIONS } from './section.ts';

/* memcached (binary protocol) over a client-side sharded set of servers. The transport is src/driver/memcached/. */

export interface MemcachedTarget {
  kind: 'memcached';
  text: string;
  servers: ServerAddress[];
}

export interface MemcachedTransportReport {
  protocol: 'memcached';
  /** Keys a get found, and keys it did not (a multi-key get counts each key). */
  hits: number;
  misses: number;
  hitRatio: number;
  shards: ShardLoad['shards'];
  shardSkew: ShardLoad['shardSkew'];
  connects: number;
  /** Connections closed because the server broke the protocol (a bad frame, a response nobody asked for). */
  protocolErrors: number;
  serverErrors: Record<string, number>;
}

const FORMS = 'memcached://host:port[,host:port…]';

function parse(text: string, _scheme: string, list: string): MemcachedTarget {
  if (list.trim() === '') throw new TargetError(text, `no servers; expected ${FORMS}`);
  const servers = list.split(',').map((part) => {
    const match = /^([^:\s/,[\]]+|\[[^\]\s]+\]):(\d+)$/.exec(part.trim());
    if (!match) throw new TargetError(text, `expected host:port, got "${part}"`);
    // Canonical, as the guard judges it: the host it approved is the host dialled (127.0.0.1. is 127.0.0.1, not a DNS name).
    return { host: canonicalHost(match[1]!), port: portOf(text, match[2]!) };
  });
  return { kind: 'memcached', text, servers };
}

const addressOf = (s: ServerAddress) => `${s.host}:${s.port}`;

function merge(reports: readonly MemcachedTransportReport[]): MemcachedTransportReport {
  const first = reports[0]!;
  const hits = sumOf(reports, (r) => r.hits);
  const misses = sumOf(reports, (r) => r.misses);
  const servers = first.shards.map((s) => s.server);
  const keys = servers.map((server) => sumOf(reports, (r) => r.shards.find((s) => s.server === server)?.keys ?? 0));
  return {
    ...first,
    hits,
    misses,
    hitRatio: hitRatioOf(hits, misses),
    ...shardLoad(servers, keys),
    connects: sumOf(reports, (r) => r.connects),
    protocolErrors: sumOf(reports, (r) => r.protocolErrors),
    serverErrors: addCounts(reports.map((r) => r.serverErrors)),
  };
}

function describe(report: MemcachedTransportReport): string[] {
  const errors = Object.entries(report.serverErrors).map(([status, n]) => `${status} ×${n}`);
  return [
    `memcached: ${report.hits} hits, ${report.misses} misses (hit ratio ${(report.hitRatio * 100).toFixed(1)}%); shard skew ${report.shardSkew.toFixed(2)} over ${report.shards.length} servers`,
    `${report.connects} connects, ${report.protocolErrors} protocol errors${errors.length > 0 ? `; server errors ${errors.join(', ')}` : ''}`,
  ];
}

export const MEMCACHED: ProtocolSpec<MemcachedTarget, MemcachedTransportReport, SettingsOf<typeof MEMCACHED_SECTIONS>, typeof MEMCACHED_SECTIONS> = {
  name: 'memcached',
  forms: FORMS,
  schemes: ['memcached'],
  parse,
  sections: MEMCACHED_SECTIONS,
  simulated: false,
  hosts: (target) => [...new Set(target.servers.map((s) => s.host))],
  inFlightBound: (profile) => profile.memcached.inFlightCap,
  resolvesSecrets: false,
  refusesUnfitKeys: true,
  realism: {
    connectionsPerClient: (profile) => profile.memcached.connectionsPerShard,
    shards: (target) => target.servers.length,
  },
  timeline: { events: new Set(['addShards', 'removeShards', 'restoreShards', 'exec', 'shift']), ring: (target) => target.servers.map(addressOf) },
  report: { merge, describe },
};
