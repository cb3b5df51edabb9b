import { z } from 'zod';
import { timeDistribution } from '../distribution.ts';
import { duration } from '../units.ts';
import { componentName, positiveCountOrInfinite, QueueSchema } from './common.ts';
import { ErrorLogSchema, GcSchema, MemorySchema } from './process.ts';
import { MEMCACHED_OPERATIONS } from '../protocols/memcached/section.ts';

export const CallSchema = z
  .strictObject({
    to: componentName.meta({ description: 'A service, cache or database in this topology.' }),
    via: componentName.meta({ description: 'The client group (in `clientGroups`) that makes the call.' }),
    kinds: z.array(z.string().min(1)).min(1).optional().meta({ description: 'Only requests of these kinds make the call; absent = every kind.' }),
    perItem: z
      .boolean()
      .default(false)
      .meta({ description: 'One call per key of the request (fan-out), at most the group’s fanoutLimit in flight. false: one call (a cache call then looks up the first key).' }),
    onMiss: z
      .strictObject({
        to: componentName.meta({ description: 'The database (or service) read on a cache miss.' }),
        via: componentName.meta({ description: 'The client group for the miss path.' }),
        readThrough: z.boolean().default(false).meta({
          description:
            'The fallback fills the cache itself when its read completes, whether or not the caller still waits (HotOS’21 §3: read-through fill). false: look-aside — only a caller that got the value in time writes it back (`fill`).',
        }),
      })
      .optional()
      .meta({ description: 'Caches only: look-aside read on a miss.' }),
    write: z.boolean().default(false).meta({
      description:
        'A write: to a database it makes a new version of the key; to a cache it sets the key (at the shard this client instance sees as its owner) with the newest version. Without it calls are reads.',
    }),
    op: z.enum(MEMCACHED_OPERATIONS).optional().meta({
      description:
        'Caches only: the memcached operation this call executes for every request that makes it. Absent: a kind named after an operation (add, delete, incr, …) is that operation, as the memcached driver sends it; any other kind is a get (a set with `write: true`).',
    }),
    optional: z.boolean().default(false).meta({
      description:
        'An optional dependency: when its pool is disabled (maxOpen 0, e.g. an operator’s `set`) or exhausted (at maxOpen with no connection free) the call is skipped at once instead of waiting, and any failure of it is ignored — the request goes on without it (Black Friday: "turn scheduling off"). Skips and ignored failures are counted per client group.',
    }),
    fill: z.boolean().default(true).meta({
      description: 'With onMiss: write the value back to the cache after a successful read — a set through `via`, waited for before the item completes; its failure is ignored.',
    }),
  })
  .meta({ description: 'A downstream call made while the worker is held. Calls run one after another in list order; the first failure fails the request with its reason.' });
export type Call = z.output<typeof CallSchema>;

export const ServiceSchema = z
  .strictObject({
    workers: positiveCountOrInfinite.meta({ description: 'Worker threads; each request holds one from start of service until its last call returns. "inf" = no limit.' }),
    queue: QueueSchema.prefault({}),
    serviceTime: timeDistribution.prefault(0).meta({ description: 'CPU time per request, before its calls.' }),
    itemTime: timeDistribution.optional().meta({ description: 'Extra CPU time per key of the request (one draw per key), added to serviceTime.' }),
    latencyPerInFlight: duration.prefault('0s').meta({
      description:
        'Added to a request’s service time for every request in the service when it starts (running and queued, itself included): latency = serviceTime + latencyPerInFlight × in-flight. A server that slows with its concurrency (lock contention, context switches) — with `workers: inf`, the shape behind retry-driven spike collapse. 0: none.',
    }),
    calls: z.array(CallSchema).default([]),
    cpus: positiveCountOrInfinite
      .prefault('inf')
      .meta({ description: 'Cores running serviceTime; a request that has a worker waits FIFO for a core. "inf": CPU is never the bottleneck (workers are).' }),
    threads: z.number().int().min(0).default(0).meta({ description: 'OS threads at idle (a gauge; blocked log writers add to it, each costing memory.perThread).' }),
    memory: MemorySchema.optional(),
    gc: GcSchema.optional(),
    errorLog: ErrorLogSchema.optional(),
  })
  .meta({ description: 'A service: a worker pool with a queue; each request takes serviceTime, then makes its calls.' });
export type Service = z.output<typeof ServiceSchema>;
