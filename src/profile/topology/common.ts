import { z } from 'zod';
import { countOrInfinite, durationOrInfinite } from '../units.ts';

/** Component names become gauge suffixes (`queueDepth.<service>`), so no dots or spaces. */
export const componentName = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'expected letters, digits, _ and -')
  .meta({ description: 'A component name: letters, digits, _ and -.' });

/** A count ≥ 1 or "inf". Schema defaults are given in input form (`prefault`) so the JSON Schema shows what a user writes. */
export const positiveCountOrInfinite = countOrInfinite.refine((n) => n >= 1, 'expected at least 1 (or "inf")');

export const QueueSchema = z
  .strictObject({
    limit: countOrInfinite.prefault('inf').meta({ description: 'Requests that may wait for a worker; one more is rejected with `queue_full`. "inf" = unbounded.' }),
    discipline: z
      .enum(['fifo', 'lifo'])
      .default('fifo')
      .meta({ description: 'fifo: oldest waiting request first; lifo: newest first (lets some requests meet their deadline under overload).' }),
    dropAfter: durationOrInfinite.prefault('inf').meta({
      description: 'A request that waited longer than this is dropped when it reaches the head (reason `expired`) instead of served: drop-expired (services only). "inf": never.',
    }),
  })
  .meta({ description: 'The wait queue in front of the workers.' });
export type Queue = z.output<typeof QueueSchema>;
