import { z } from 'zod';
import { timeDistribution } from '../../profile/distribution.ts';
import { countOrInfinite } from '../../profile/units.ts';
import { positiveCountOrInfinite, QueueSchema } from './common.ts';

export const HASH_NAMES = ['fnv1_32', 'fnv1a_32', 'murmur3'] as const;
export type HashName = (typeof HASH_NAMES)[number];

export const CacheSchema = z
  .strictObject({
    shards: z.number().int().min(1).default(1).meta({ description: 'Cache nodes; a key lives on exactly one.' }),
    hash: z
      .enum(HASH_NAMES)
      .default('murmur3')
      .meta({ description: 'Hash of the key’s UTF-8 name: fnv1_32 (FNV-1, multiply then xor), fnv1a_32 (xor then multiply), murmur3 (x86_32, seed 0).' }),
    placement: z.enum(['modulo']).default('modulo').meta({ description: 'modulo: shard = hash mod shards.' }),
    workers: positiveCountOrInfinite.prefault(4).meta({ description: 'Worker threads per shard (memcached -t, default 4).' }),
    queue: QueueSchema.prefault({}).meta({ description: 'Wait queue per shard.' }),
    serviceTime: timeDistribution.prefault('20us').meta({ description: 'Time per get or set on a shard.' }),
    capacity: countOrInfinite.prefault('inf').meta({ description: 'Keys per shard, evicted least-recently-used first.' }),
    warm: z
      .boolean()
      .default(false)
      .meta({ description: 'Start with every shard filled by its most popular keys (ids are popularity ranks). false: start empty.' }),
  })
  .meta({ description: 'A sharded look-aside cache (memcached-like) holding keys, not values.' });
export type Cache = z.output<typeof CacheSchema>;
