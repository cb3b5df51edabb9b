import { z } from 'zod';
import { timeDistribution } from '../distribution.ts';
import { countOrInfinite } from '../units.ts';

export const DatabaseSchema = z
  .strictObject({
    concurrency: z.number().int().min(1).meta({ description: 'Operations served at once; the rest wait in the queue.' }),
    latency: timeDistribution.meta({ description: 'Time per operation on an unloaded database.' }),
    slowdown: z.number().nonnegative().default(0).meta({
      description:
        'Load-dependent latency: an operation starting with `outstanding` operations in the database (serving + queued, itself included) takes latency × (1 + slowdown × max(0, outstanding/concurrency − 1)). 0 = no slowdown.',
    }),
    queue: z
      .strictObject({
        limit: countOrInfinite.prefault('inf').meta({
          description: 'Operations that may wait; one more is rejected with `queue_full`. A small limit is admission control: fail fast so admitted reads finish in time.',
        }),
      })
      .prefault({}),
    rateLimit: countOrInfinite.prefault('inf').meta({
      description:
        'Quota in operations/s (a token bucket holding at most 100 ms of tokens); an operation without a token is rejected at once with `rate_limited`. "inf": no quota.',
    }),
  })
  .meta({ description: 'A database node (ScyllaDB, MySQL): limited concurrency with latency that grows under load.' });
export type Database = z.output<typeof DatabaseSchema>;
