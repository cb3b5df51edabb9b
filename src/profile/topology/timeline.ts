import { z } from 'zod';
import { countOrInfinite, duration } from '../units.ts';
import { componentName } from './common.ts';
import { shardList } from './shards.ts';

const at = duration.meta({ description: 'When, from the start of the run (warm-up included).' });

const every = duration.prefault('0s');

/*
 * Every event names its kind in `type` (a discriminated union: a wrong or missing type gets one
 * clear error naming the kinds) and carries its fields flat beside `at`.
 */

export const AddShardsSchema = z
  .strictObject({
    type: z.literal('addShards'),
    at,
    cache: componentName,
    count: z.number().int().min(1),
    every: every.meta({ description: 'Pause between two additions; 0s adds them all at once (Twitter 2016-07: 115 at once, meant to be one per 20 min).' }),
  })
  .meta({ description: 'Cluster membership grows: new, empty shards join the cache (its placement decides how many keys move to them).' });

export const RemoveShardsSchema = z
  .strictObject({
    type: z.literal('removeShards'),
    at,
    cache: componentName,
    count: z.number().int().min(1).optional().meta({ description: 'How many leave, the highest-numbered first (or name them in `shards`).' }),
    shards: shardList.optional().meta({ description: 'Which shards leave, in this order (instead of `count`).' }),
    every: every.meta({ description: 'Pause between two removals; 0s removes them all at once.' }),
  })
  .meta({
    description:
      'Shards leave the cache (`count` of them, the highest-numbered first, or the named `shards`); their keys move to the rest, which must refill. A later addShards brings the last removed back first, as the cache’s `rejoin.membership` says.',
  });

export const RestoreShardsSchema = z
  .strictObject({
    type: z.literal('restoreShards'),
    at,
    cache: componentName,
    every: every.meta({ description: 'Pause between two restores; 0s restores every dead shard at once (2016-01: first too slow, then too fast).' }),
  })
  .meta({ description: 'An operator restarts the cache’s dead shards (empty: they refill from misses).' });

export const FlushSchema = z
  .strictObject({ type: z.literal('flush'), at, cache: componentName })
  .meta({ description: 'The cache loses its contents at once (a tier restart): the cold-cache trigger of HotOS’21 §2.2.' });

export const RestartSchema = z
  .strictObject({
    type: z.literal('restart'),
    at,
    service: componentName,
    downFor: duration.prefault('5s').meta({ description: 'Time until the new process accepts requests (empty pools and heap; the host’s TIME_WAIT stays).' }),
  })
  .meta({ description: 'An operator restarts a service’s process.' });

export const LatencySchema = z
  .strictObject({
    type: z.literal('latency'),
    at,
    until: duration.meta({ description: 'When the injected latency ends.' }),
    service: componentName.optional(),
    cache: componentName.optional(),
    database: componentName.optional(),
    add: duration.meta({ description: 'Added to every request’s service time (it holds the worker, shard worker or database slot).' }),
  })
  .meta({ description: 'Latency injection on one component for a window (a dependency slows down).' });

export const CapacityDipSchema = z
  .strictObject({
    type: z.literal('dip'),
    start: duration.prefault('0s').meta({ description: 'First dip.' }),
    every: duration.meta({ description: 'Period of the dip (Twitter 2018-06: perf-counter collection every 60 s).' }),
    for: duration.meta({ description: 'Length of each dip (2018-06: 10 s).' }),
    cache: componentName.optional(),
    service: componentName.optional(),
    slowdown: z.number().min(1).meta({ description: 'Service time multiplier during the dip (2: half the capacity).' }),
  })
  .meta({ description: 'A periodic capacity dip on every shard of a cache or on a service.' });

export const SetSchema = z
  .strictObject({
    type: z.literal('set'),
    at,
    clientGroup: componentName,
    maxOpen: countOrInfinite.optional().meta({ description: 'The pool’s max connections (0 switches the calls off).' }),
    fanoutLimit: countOrInfinite.optional(),
  })
  .meta({ description: 'An operator changes a setting mid-run (Black Friday: the scheduling pool’s max set to a small number, or 0).' });

export const BlipSchema = z
  .strictObject({
    type: z.literal('blip'),
    at,
    for: duration.meta({ description: 'Length of the blip.' }),
    every: duration.optional().meta({ description: 'Repeat with this period (a freeze every 20 h 40 min, scaled); absent: once.' }),
    cache: componentName,
    shards: shardList,
    loss: z.number().min(0).max(1).optional().meta({ description: 'Chance each request to these shards is lost (no reply: the client times out). 1: a freeze.' }),
    down: z.boolean().optional().meta({ description: 'The shards refuse requests (`connection_refused`); their contents stay.' }),
    latency: duration.optional().meta({ description: 'Added to every op on these shards.' }),
  })
  .meta({ description: 'A time-limited fault on some shards of a cache: correlated loss, an outage, or latency (Twitter 2011-08: a periodic kernel freeze).' });

export const NetworkSchema = z
  .strictObject({
    type: z.literal('network'),
    at,
    for: duration.meta({ description: 'How long the network element misbehaves.' }),
    to: componentName.meta({ description: 'The service, cache or database whose incoming requests pass through it.' }),
    shards: shardList.optional().meta({ description: 'A cache’s shards only (default: all).' }),
    mode: z.enum(['delay', 'drop', 'hold']).meta({
      description:
        'delay: each request arrives `delay` later; drop: a partition, requests are lost (clients time out); hold: a buffer that delivers every request it held at the end of the window at once — including those whose callers gave up (HotOS’21 retry example’s trigger).',
    }),
    delay: duration.prefault('0s').meta({ description: 'One-way delay of `mode: delay`.' }),
  })
  .meta({ description: 'A network element in front of a component for a window: requests only (replies take the normal path).' });

export const ExecSchema = z
  .strictObject({
    type: z.literal('exec'),
    at,
    command: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .meta({ description: 'A list is run as argv, without a shell; a string is run by /bin/sh -c exactly as written (nothing is added to it).' }),
    timeout: duration.prefault('30s').meta({ description: 'Longest the command may run; past it it is killed (SIGKILL) and recorded as timed out.' }),
  })
  .meta({
    description:
      'Real targets: run your own command at a time (a failover script, a server restart). Exit code, duration and the tail of its output are recorded. Needs --allow-exec; the model does not run it.',
  });

export const ShiftSchema = z
  .strictObject({
    type: z.literal('shift'),
    at,
    until: duration.optional().meta({ description: 'When the traffic moves back; absent = to the end of the run.' }),
    from: z.string().min(1).meta({ description: 'The profile client whose traffic moves.' }),
    to: z.string().min(1).meta({ description: 'The profile client that takes it (with its own mix and sizes).' }),
    fraction: z.number().min(0).max(1).meta({ description: 'Share of `from`’s rate that moves (1: all of it, a data centre failing over).' }),
  })
  .meta({ description: 'Traffic moves from one profile client to another from a time (a data centre fails over to this one); model and real targets alike.' });

export const TimelineEventSchema = z.discriminatedUnion('type', [
  AddShardsSchema,
  RemoveShardsSchema,
  RestoreShardsSchema,
  FlushSchema,
  RestartSchema,
  LatencySchema,
  CapacityDipSchema,
  SetSchema,
  BlipSchema,
  NetworkSchema,
  ExecSchema,
  ShiftSchema,
]);
export type TimelineEvent = z.output<typeof TimelineEventSchema>;

/** Shard slots a cache needs: its initial shards plus every shard the timeline adds. */
export function shardSlots(cache: string, shards: number, events: readonly TimelineEvent[]): number {
  let slots = shards;
  for (const e of events) if (e.type === 'addShards' && e.cache === cache) slots += e.count;
  return slots;
}
