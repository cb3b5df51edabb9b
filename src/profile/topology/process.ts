import { z } from 'zod';
import { duration } from '../units.ts';

/**
 * Process state of a service: what dies with the process (heap, threads, queued work, its client
 * groups' pools) as opposed to host state (ports, TIME_WAIT) that survives a restart. Memory is in
 * MB; every figure is a modelling choice to calibrate, not a measurement.
 */
export const MemorySchema = z
  .strictObject({
    limit: z.number().positive().meta({ description: 'MB. Above it the process is OOM-killed (container limit); it restarts after `restartDelay`.' }),
    base: z.number().nonnegative().default(0).meta({ description: 'MB in use at idle (live heap of an idle process).' }),
    perRequest: z.number().nonnegative().default(0).meta({ description: 'MB held by each request in the service (queued or in service).' }),
    perCall: z.number().nonnegative().default(0).meta({ description: 'MB held by each downstream call in flight (a goroutine and its buffers).' }),
    perThread: z.number().nonnegative().default(0).meta({ description: 'MB per OS thread (stack, runtime structures); not part of the GC heap.' }),
    restartDelay: duration.prefault('10s').meta({ description: 'Time from an OOM kill until the restarted process accepts requests again (empty pools, empty heap).' }),
  })
  .meta({ description: 'Process memory: used = base + perRequest × requests + perCall × calls in flight + perThread × threads.' });

export const GcSchema = z
  .strictObject({
    cost: z.number().nonnegative().meta({
      description:
        'GC CPU share when the live heap is half of memory.limit. share = cost × live / (limit − live), capped at 0.95: collections get more frequent as the headroom shrinks (GOMEMLIMIT, a full JVM heap) and each costs in proportion to live data.',
    }),
  })
  .meta({ description: 'Garbage collection: CPU time per request is stretched by 1 / (1 − GC share). Needs `memory`.' });

export const ErrorLogSchema = z
  .strictObject({
    writeTime: duration.meta({ description: 'One blocking write(2) of a log line. Writes to one log file are serialised; a writer blocked in the syscall holds an OS thread.' }),
    every: z
      .number()
      .int()
      .min(1)
      .default(1)
      .meta({ description: 'Log one failure in `every` (1 = every failed call, the incident; 1000 = a sampled counter instead of a log line per error).' }),
  })
  .meta({ description: 'Cost of logging a failed downstream call: the call completes after its line is written.' });
