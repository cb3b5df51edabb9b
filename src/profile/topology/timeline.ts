import { z } from 'zod';
import { countOrInfinite, duration } from '../units.ts';
import { componentName } from './common.ts';

const at = duration.meta({ description: 'When, from the start of the run (warm-up included).' });

export const AddShardsSchema = z
  .strictObject({
    at,
    addShards: z.strictObject({
      cache: componentName,
      count: z.number().int().min(1),
      every: duration.prefault('0s').meta({ description: 'Pause between two additions; 0s adds them all at once (Twitter 2016-07: 115 at once, meant to be one per 20 min).' }),
    }),
  })
  .meta({ description: 'Cluster membership grows: new, empty shards join the cache (its placement decides how many keys move to them).' });

export const RemoveShardsSchema = z
  .strictObject({
    at,
    removeShards: z.strictObject({
      cache: componentName,
      count: z.number().int().min(1),
      every: duration.prefault('0s'),
    }),
  })
  .meta({ description: 'Shards leave the cache (the highest-numbered first); their keys move to the rest, which must refill.' });

export const RestoreShardsSchema = z
  .strictObject({
    at,
    restoreShards: z.strictObject({
      cache: componentName,
      every: duration.prefault('0s').meta({ description: 'Pause between two restores; 0s restores every dead shard at once (2016-01: first too slow, then too fast).' }),
    }),
  })
  .meta({ description: 'An operator restarts the cache’s dead shards (empty: they refill from misses).' });

export const FlushSchema = z
  .strictObject({ at, flush: z.strictObject({ cache: componentName }) })
  .meta({ description: 'The cache loses its contents at once (a tier restart): the cold-cache trigger of HotOS’21 §2.2.' });

export const RestartSchema = z
  .strictObject({
    at,
    restart: z.strictObject({
      service: componentName,
      downFor: duration.prefault('5s').meta({ description: 'Time until the new process accepts requests (empty pools and heap; the host’s TIME_WAIT stays).' }),
    }),
  })
  .meta({ description: 'An operator restarts a service’s process.' });

export const LatencySchema = z
  .strictObject({
    at,
    until: duration.meta({ description: 'When the injected latency ends.' }),
    latency: z.strictObject({
      service: componentName.optional(),
      cache: componentName.optional(),
      database: componentName.optional(),
      add: duration.meta({ description: 'Added to every request’s service time (it holds the worker, shard worker or database slot).' }),
    }),
  })
  .meta({ description: 'Latency injection on one component for a window (a dependency slows down).' });

export const CapacityDipSchema = z
  .strictObject({
    start: duration.prefault('0s').meta({ description: 'First dip.' }),
    every: duration.meta({ description: 'Period of the dip (Twitter 2018-06: perf-counter collection every 60 s).' }),
    for: duration.meta({ description: 'Length of each dip (2018-06: 10 s).' }),
    dip: z.strictObject({
      cache: componentName.optional(),
      service: componentName.optional(),
      slowdown: z.number().min(1).meta({ description: 'Service time multiplier during the dip (2: half the capacity).' }),
    }),
  })
  .meta({ description: 'A periodic capacity dip on every shard of a cache or on a service.' });

export const SetSchema = z
  .strictObject({
    at,
    set: z.strictObject({
      clientGroup: componentName,
      maxOpen: countOrInfinite.optional().meta({ description: 'The pool’s max connections (0 switches the calls off).' }),
      fanoutLimit: countOrInfinite.optional(),
    }),
  })
  .meta({ description: 'An operator changes a setting mid-run (Black Friday: the scheduling pool’s max set to a small number, or 0).' });

export const TimelineEventSchema = z.union([AddShardsSchema, RemoveShardsSchema, RestoreShardsSchema, FlushSchema, RestartSchema, LatencySchema, CapacityDipSchema, SetSchema]);
export type TimelineEvent = z.output<typeof TimelineEventSchema>;
