import type { ServerAddress } from '../address.ts';
import { mergeShardedCounts, parseServers, type ShardedCounts } from '../sharded.ts';
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

/** serverErrors: by the binary protocol's status (0x0084 out of memory…). */
export interface MemcachedTransportReport extends ShardedCounts {
  protocol: 'memcached';
  /** Answers of each operation sent, by outcome (operations never answered are left out). */
  operations: Partial<Record<MemcachedOperation, MemcachedOperationCounts>>;
}

const FORMS = 'memcached://host:port[,host:port…]';

function parse(text: string, _scheme: string, list: string): MemcachedTarget {
  return { kind: 'memcached', text, servers: parseServers(text, list, FORMS) };
}

const addressOf = (s: ServerAddress) => `${s.host}:${s.port}`;

function merge(reports: readonly MemcachedTransportReport[]): MemcachedTransportReport {
  return { ...reports[0]!, ...mergeShardedCounts(reports), operations: mergeOperations(reports) };
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
