import { canonicalHost, TargetError } from '../../target.ts';
import { addCounts, portOf, sumOf, type ServerAddress } from '../address.ts';
import { hitRatioOf, type ShardLoad, shardLoad } from '../sharded.ts';
import type { ProtocolSpec, SettingsOf } from '../spec.ts';
import { REDIS_OPERATIONS, REDIS_SECTIONS, type RedisOperation, redisOperationOfKind } from './section.ts';

/* Redis (RESP2: GET, SET, MGET) over a client-side sharded set of servers. The transport is src/driver/redis/. */

export interface RedisTarget {
  kind: 'redis';
  text: string;
  servers: ServerAddress[];
}

export interface RedisTransportReport {
  protocol: 'redis';
  /** Keys a GET or MGET found (hits: keyspace_hits) and did not (misses: keyspace_misses); an MGET counts each key. SETs are neither. */
  hits: number;
  misses: number;
  hitRatio: number;
  shards: ShardLoad['shards'];
  shardSkew: ShardLoad['shardSkew'];
  connects: number;
  /** Connections closed because the server broke RESP (a malformed frame, a reply of the wrong type, a reply nobody asked for). */
  protocolErrors: number;
  /** Error replies by their prefix (ERR, WRONGTYPE, OOM…): each failed its request. */
  serverErrors: Record<string, number>;
  /** Replies of each command sent, error replies included: what INFO commandstats counts as its calls (an MGET per shard is one). */
  commands: Partial<Record<RedisOperation, number>>;
}

const FORMS = 'redis://host:port[,host:port…]';

function parse(text: string, _scheme: string, list: string): RedisTarget {
  if (list.trim() === '') throw new TargetError(text, `no servers; expected ${FORMS}`);
  const servers = list.split(',').map((part) => {
    const match = /^([^:\s/,[\]]+|\[[^\]\s]+\]):(\d+)$/.exec(part.trim());
    if (!match) throw new TargetError(text, `expected host:port, got "${part}"`);
    // Canonical, as the guard judges it: the host it approved is the host dialled.
    return { host: canonicalHost(match[1]!), port: portOf(text, match[2]!) };
  });
  return { kind: 'redis', text, servers };
}

const addressOf = (s: ServerAddress) => `${s.host}:${s.port}`;

function merge(reports: readonly RedisTransportReport[]): RedisTransportReport {
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
    commands: addCounts(reports.map((r) => r.commands)),
  };
}

function describe(report: RedisTransportReport): string[] {
  const errors = Object.entries(report.serverErrors).map(([prefix, n]) => `${prefix} ×${n}`);
  const commands = REDIS_OPERATIONS.filter((c) => (report.commands[c] ?? 0) > 0).map((c) => `${c.toUpperCase()} ${report.commands[c]}`);
  return [
    `redis: ${report.hits} hits, ${report.misses} misses (hit ratio ${(report.hitRatio * 100).toFixed(1)}%); shard skew ${report.shardSkew.toFixed(2)} over ${report.shards.length} servers`,
    `${report.connects} connects, ${report.protocolErrors} protocol errors${errors.length > 0 ? `; error replies ${errors.join(', ')}` : ''}`,
    ...(commands.length > 0 ? [`commands: ${commands.join(', ')}`] : []),
  ];
}

export const REDIS: ProtocolSpec<RedisTarget, RedisTransportReport, SettingsOf<typeof REDIS_SECTIONS>, typeof REDIS_SECTIONS> = {
  name: 'redis',
  forms: FORMS,
  schemes: ['redis'],
  parse,
  sections: REDIS_SECTIONS,
  simulated: false,
  hosts: (target) => [...new Set(target.servers.map((s) => s.host))],
  inFlightBound: (profile) => profile.redis.inFlightCap,
  resolvesSecrets: false,
  kindKeyed: [['redis', 'operations']],
  // RESP strings are binary-safe: Redis takes any key memcached would refuse.
  refusesUnfitKeys: false,
  realism: {
    connectionsPerClient: (profile) => profile.redis.connectionsPerShard,
    shards: (target) => target.servers.length,
    writes: (profile, kind) => redisOperationOfKind(profile.redis.operations, kind) === 'set',
  },
  timeline: { events: new Set(['addShards', 'removeShards', 'restoreShards', 'exec', 'shift']), ring: (target) => target.servers.map(addressOf) },
  report: { merge, describe },
};
