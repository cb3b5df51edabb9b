import { z } from 'zod';
import { timeDistribution } from '../distribution.ts';
import { countOrInfinite } from '../units.ts';
import { positiveCountOrInfinite } from './common.ts';
import { type ShardList, shardList, shardListHas } from './shards.ts';

const bandwidth = z
  .union([z.number().positive(), z.literal('inf')])
  .transform((v) => (v === 'inf' ? Number.POSITIVE_INFINITY : v))
  .meta({ description: 'NIC bandwidth of these shards, bytes/s (1 Gb/s = 125000000).' });

export const ShardClassSchema = z
  .strictObject({
    shards: shardList.optional().meta({ description: 'These slots: "0-19", "3" or [0, 4, 7].' }),
    fraction: z.number().gt(0).max(1).optional().meta({ description: 'The first round(fraction × shards) slots (ids carry no meaning: which shards is immaterial under ketama).' }),
    every: z
      .strictObject({ mod: z.number().int().min(2), rem: z.number().int().min(0) })
      .optional()
      .meta({ description: 'Slots with slot mod `mod` = `rem` (even shards: {mod: 2, rem: 0}).' }),
    nic: bandwidth.optional(),
    workers: positiveCountOrInfinite.optional(),
    serviceTime: timeDistribution.optional().meta({ description: 'Time per op on these shards (an older, slower generation).' }),
    connectionLimit: countOrInfinite.optional().meta({ description: 'Fd limit of these shards.' }),
    backlog: countOrInfinite.optional(),
    memory: z
      .strictObject({
        limit: z.number().positive().optional(),
        base: z.number().nonnegative().optional(),
        perConnection: z.number().nonnegative().optional(),
        perQueuedOp: z.number().nonnegative().optional(),
        fragmentation: z.number().min(0).max(0.95).optional(),
      })
      .optional()
      .meta({
        description: 'Overrides of the cache’s `memory` on these shards (2016-01: a generation with half the socket-buffer memory); a cache without `memory` needs `limit` here.',
      }),
    packetLoss: z.number().min(0).max(1).optional().meta({ description: 'Chance a request to one of these shards is lost, all run long (a host without IRQ affinity).' }),
  })
  .refine((c) => [c.shards, c.fraction, c.every].filter((x) => x !== undefined).length === 1, 'expected exactly one of `shards`, `fraction` or `every`')
  .meta({ description: 'Shards that differ from the rest of their cache: hardware generation, NIC, memory, fd limit, faults.' });
export type ShardClass = z.output<typeof ShardClassSchema>;

/** True when the class selects slot `shard` of a cache that starts with `shards` shards. */
export function classHas(c: ShardClass, shard: number, shards: number): boolean {
  if (c.shards !== undefined) return shardListHas(c.shards as ShardList, shard);
  if (c.fraction !== undefined) return shard < Math.round(c.fraction * shards);
  const every = c.every!;
  return shard % every.mod === every.rem;
}
