import { z } from 'zod';
import { HASH_NAMES } from '../../topology/cache.ts';
import { duration } from '../../units.ts';

/* The profile's `redis:` section: sharding, connections and the commands the mix's kinds become. */

/** The commands the Redis driver sends, by the names a profile's `redis.operations` and a kind named after one use. */
export const REDIS_OPERATIONS = ['get', 'set', 'mget'] as const;
export type RedisOperation = (typeof REDIS_OPERATIONS)[number];

/** The command a kind of the mix is sent as: its `operations` entry, else the command it is named after, else get. */
export function redisOperationOfKind(operations: Readonly<Record<string, RedisOperation>>, kind: string): RedisOperation {
  return operations[kind] ?? REDIS_OPERATIONS.find((op) => op === kind) ?? 'get';
}

export const RedisTargetSchema = z
  .strictObject({
    hash: z
      .enum(HASH_NAMES)
      .default('murmur3')
      .meta({ description: 'Key hash for client-side sharding, as for memcached (fnv1_32 shows the 2018-04 skew; md5 is ketama’s default).' }),
    distribution: z.enum(['modulo', 'ketama']).default('modulo').meta({ description: 'modulo: shard = hash mod shards; ketama: a consistent-hash ring (160 points per server).' }),
    connectionsPerShard: z
      .number()
      .int()
      .min(1)
      .default(1)
      .meta({ description: 'Connections to each server; each is pipelined up to `pipelining` (unset: bounded only by inFlightCap).' }),
    pipelining: z.number().int().min(1).optional().meta({
      description:
        "Most commands in flight on one connection, as redis-benchmark's -P: a command due beyond it waits for a reply on the shard's connections, and its wait counts in its latency. Unset: no limit but inFlightCap.",
    }),
    timeout: duration.default(1_000_000).meta({ description: 'Per command, from its write.' }),
    inFlightCap: z.number().int().min(1).default(10_000).meta({ description: 'Most requests in flight; a request due beyond it is dropped.' }),
    operations: z
      .record(z.string(), z.enum(REDIS_OPERATIONS))
      .default({})
      .meta({
        description: `Command per kind of the mix (${REDIS_OPERATIONS.join(', ')}); a kind named after one needs no entry, any other kind is a get. A get with a batch > 1 is one MGET per shard it touches.`,
      }),
  })
  .meta({ description: 'How the mix becomes Redis commands (RESP2) when the target is redis://host:port[,host:port…].' });

/** The profile's sections for Redis: `redis:`. */
export const REDIS_SECTIONS = {
  redis: RedisTargetSchema.prefault({}).meta({ description: 'Sharding and connections for a redis:// target.' }),
};

/** The profile's `redis:` section with every default applied (durations in µs). */
export type RedisSettings = z.output<typeof RedisTargetSchema>;
