import { addCounts, type ServerAddress } from '../address.ts';
import { mergeShardedCounts, parseServers, type ShardedCounts } from '../sharded.ts';
import type { ProtocolSpec, SettingsOf } from '../spec.ts';
import { REDIS_OPERATIONS, REDIS_SECTIONS, type RedisOperation, redisOperationOfKind } from './section.ts';

/* Redis (RESP2: GET, SET, MGET) over a client-side sharded set of servers. The transport is src/driver/redis/. */

export interface RedisTarget {
  kind: 'redis';
  text: string;
  servers: ServerAddress[];
}

/** hits and misses: keyspace_hits and keyspace_misses (an MGET counts each key); serverErrors: error replies by their prefix (ERR, WRONGTYPE, OOM…). */
export interface RedisTransportReport extends ShardedCounts {
  protocol: 'redis';
  /** Replies of each command sent, error replies included: what INFO commandstats counts as its calls (an MGET per shard is one). */
  commands: Partial<Record<RedisOperation, number>>;
  /** Connections the transport held (servers × connectionsPerShard). */
  connections: number;
  /** Most commands in flight on each, when `redis.pipelining` set one. */
  pipelining?: number;
}

const FORMS = 'redis://host:port[,host:port…]';

function parse(text: string, _scheme: string, list: string): RedisTarget {
  return { kind: 'redis', text, servers: parseServers(text, list, FORMS) };
}

const addressOf = (s: ServerAddress) => `${s.host}:${s.port}`;

function merge(reports: readonly RedisTransportReport[]): RedisTransportReport {
  return {
    ...reports[0]!,
    ...mergeShardedCounts(reports),
    commands: addCounts(reports.map((r) => r.commands)),
    connections: reports.reduce((n, r) => n + r.connections, 0),
  };
}

function describe(report: RedisTransportReport): string[] {
  const errors = Object.entries(report.serverErrors).map(([prefix, n]) => `${prefix} ×${n}`);
  const commands = REDIS_OPERATIONS.filter((c) => (report.commands[c] ?? 0) > 0).map((c) => `${c.toUpperCase()} ${report.commands[c]}`);
  return [
    `redis: ${report.hits} hits, ${report.misses} misses (hit ratio ${(report.hitRatio * 100).toFixed(1)}%); shard skew ${report.shardSkew.toFixed(2)} over ${report.shards.length} servers`,
    `${report.connections} connections${report.pipelining === undefined ? '' : ` × pipelining ${report.pipelining}`}, ${report.connects} connects, ${report.protocolErrors} protocol errors${errors.length > 0 ? `; error replies ${errors.join(', ')}` : ''}`,
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
  report: {
    merge,
    describe,
    connectionPool: (r) => (r.pipelining === undefined ? undefined : { connections: r.connections, slots: r.connections * r.pipelining }),
  },
};
