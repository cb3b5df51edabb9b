import { canonicalHost, TargetError } from '../../target.ts';
import { addCounts, portOf, sumOf, type ServerAddress } from '../address.ts';
import { hitRatioOf, type ShardLoad, shardLoad } from '../sharded.ts';
import type { ProtocolSpec, SettingsOf } from '../spec.ts';
import { MEMCACHED_SECTIONS, type MemcachedOperation, operationOfKind } from './section.ts';

/* memcached (binary protocol) over a client-side sharded set of servers. The transport is src/driver/memcached/. */

export interface MemcachedTarget {
  kind: 'memcached';
  text: string;
  servers: ServerAddress[];
}

/**
 * One operation's answers by outcome, as memcached counts them. NOT_FOUND, EXISTS, NOT_STORED and a
 * non-numeric counter are outcomes (the request succeeded); a failed request is in the run's errors.
 * A get's or gets' keys: ok = get_hits, notFound = get_misses. cas: ok = cas_hits, exists =
 * cas_badval, notFound = cas_misses. delete, incr, decr, touch: ok = their _hits, notFound = their
 * _misses. add: exists (the key was there: NOT_STORED); replace: notFound; append, prepend: notStored.
 */
export interface MemcachedOperationCounts {
  ok: number;
  notFound: number;
  exists: number;
  notStored: number;
  nonNumeric: number;
}

export interface MemcachedTransportReport {
  protocol: 'memcached';
  /** Keys a get or gets found (hits) and did not (misses); a multi-key get counts each key. Writes are neither. */
  hits: number;
  misses: number;
  hitRatio: number;
  shards: ShardLoad['shards'];
  shardSkew: ShardLoad['shardSkew'];
  connects: number;
  /** Connections closed because the server broke the protocol (a bad frame, a response nobody asked for). */
  protocolErrors: number;
  serverErrors: Record<string, number>;
  /** Answers of each operation sent, by outcome (operations never answered are left out). */
  operations: Partial<Record<MemcachedOperation, MemcachedOperationCounts>>;
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
    operations: mergeOperations(reports),
  };
}

function mergeOperations(reports: readonly MemcachedTransportReport[]): MemcachedTransportReport['operations'] {
  const out: MemcachedTransportReport['operations'] = {};
  for (const report of reports)
    for (const [op, counts] of Object.entries(report.operations) as [MemcachedOperation, MemcachedOperationCounts][]) {
      const into = (out[op] ??= { ok: 0, notFound: 0, exists: 0, notStored: 0, nonNumeric: 0 });
      for (const outcome of Object.keys(counts) as (keyof MemcachedOperationCounts)[]) into[outcome] += counts[outcome];
    }
  return out;
}

function describe(report: MemcachedTransportReport): string[] {
  const errors = Object.entries(report.serverErrors).map(([status, n]) => `${status} ×${n}`);
  const operations = describeOperations(report.operations);
  return [
    `memcached: ${report.hits} hits, ${report.misses} misses (hit ratio ${(report.hitRatio * 100).toFixed(1)}%); shard skew ${report.shardSkew.toFixed(2)} over ${report.shards.length} servers`,
    `${report.connects} connects, ${report.protocolErrors} protocol errors${errors.length > 0 ? `; server errors ${errors.join(', ')}` : ''}`,
    ...(operations === undefined ? [] : [operations]),
  ];
}

const OUTCOME_WORDS: Record<Exclude<keyof MemcachedOperationCounts, 'ok'>, string> = {
  notFound: 'not found',
  exists: 'exists',
  notStored: 'not stored',
  nonNumeric: 'non-numeric',
};

/** Each operation's answers and the outcomes other than ok, e.g. "add 480 (120 exists)"; none for a run of gets alone (its hits and misses say it). */
function describeOperations(operations: MemcachedTransportReport['operations']): string | undefined {
  const entries = Object.entries(operations) as [MemcachedOperation, MemcachedOperationCounts][];
  if (entries.every(([op]) => op === 'get' || op === 'gets')) return undefined;
  const each = entries.map(([op, counts]) => {
    const others = (Object.keys(OUTCOME_WORDS) as (keyof typeof OUTCOME_WORDS)[]).filter((o) => counts[o] > 0).map((o) => `${counts[o]} ${OUTCOME_WORDS[o]}`);
    const answered = counts.ok + counts.notFound + counts.exists + counts.notStored + counts.nonNumeric;
    return `${op} ${answered}${others.length > 0 ? ` (${others.join(', ')})` : ''}`;
  });
  return `operations: ${each.join(', ')}`;
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
  kindKeyed: [['memcached', 'operations']],
  refusesUnfitKeys: true,
  realism: {
    connectionsPerClient: (profile) => profile.memcached.connectionsPerShard,
    shards: (target) => target.servers.length,
    // Every operation but get and gets writes.
    writes: (profile, kind) => !['get', 'gets'].includes(operationOfKind(profile.memcached.operations, kind)),
  },
  timeline: { events: new Set(['addShards', 'removeShards', 'restoreShards', 'exec', 'shift']), ring: (target) => target.servers.map(addressOf) },
  report: { merge, describe },
};
