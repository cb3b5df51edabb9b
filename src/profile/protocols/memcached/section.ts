import { z } from 'zod';
import { HASH_NAMES } from '../../topology/cache.ts';
import { duration } from '../../units.ts';

/* The profile's `memcached:` section: sharding and connections. */

/**
 * The operations the memcached driver sends, by the names a profile's `memcached.operations` and a
 * kind named after one use (gets is get: the binary protocol's get always returns the CAS unique).
 */
export const MEMCACHED_OPERATIONS = ['get', 'gets', 'set', 'add', 'replace', 'cas', 'append', 'prepend', 'delete', 'incr', 'decr', 'touch'] as const;
export type MemcachedOperation = (typeof MEMCACHED_OPERATIONS)[number];

/** The operation a kind of the mix is sent as: its `operations` entry, else the operation it is named after, else get. */
export function operationOfKind(operations: Readonly<Record<string, MemcachedOperation>>, kind: string): MemcachedOperation {
  return operations[kind] ?? MEMCACHED_OPERATIONS.find((op) => op === kind) ?? 'get';
}

export const MemcachedTargetSchema = z
  .strictObject({
    hash: z
      .enum(HASH_NAMES)
      .default('murmur3')
      .meta({ description: 'Key hash for client-side sharding, as in topologies (fnv1_32 shows the 2018-04 skew; md5 is ketama’s default).' }),
    distribution: z.enum(['modulo', 'ketama']).default('modulo').meta({ description: 'modulo: shard = hash mod shards; ketama: a consistent-hash ring (160 points per server).' }),
    connectionsPerShard: z.number().int().min(1).default(1).meta({ description: 'Connections to each server; each is fully pipelined (bounded by inFlightCap).' }),
    timeout: duration.default(1_000_000).meta({ description: 'Per operation, from its write.' }),
    inFlightCap: z.number().int().min(1).default(10_000).meta({ description: 'Most requests in flight; a request due beyond it is dropped.' }),
    operations: z
      .record(z.string(), z.enum(MEMCACHED_OPERATIONS))
      .default({})
      .meta({
        description: `Operation per kind of the mix (${MEMCACHED_OPERATIONS.join(', ')}); a kind named after one needs no entry, any other kind is a get. A get with a batch > 1 is a multi-key get.`,
      }),
  })
  .meta({ description: 'How the mix becomes memcached operations when the target is memcached://host:port[,host:port…].' });

/** The profile's sections for memcached: `memcached:`. */
export const MEMCACHED_SECTIONS = {
  memcached: MemcachedTargetSchema.prefault({}).meta({ description: 'Sharding and connections for a memcached:// target.' }),
};

/** The profile's `memcached:` section with every default applied (durations in µs). */
export type MemcachedSettings = z.output<typeof MemcachedTargetSchema>;
