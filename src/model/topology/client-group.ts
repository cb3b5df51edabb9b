import { z } from 'zod';
import { countOrInfinite, duration, durationOrInfinite } from '../../profile/units.ts';
import { componentName } from './common.ts';

/**
 * A machine's kernel state that outlives any process on it: the ephemeral-port table per
 * (source host, destination node) and TIME_WAIT. Linux defaults: `ip_local_port_range` 32768–60999
 * = 28,232 ports, `TCP_TIMEWAIT_LEN` = 60 s.
 */
export const HostSchema = z
  .strictObject({
    portRange: z
      .number()
      .int()
      .min(1)
      .default(28_232)
      .meta({ description: 'Ephemeral ports per (source host, destination node): open + TIME_WAIT connections ≤ this. Linux default 32768–60999 = 28232.' }),
    timeWait: duration.prefault('60s').meta({ description: 'How long a closed connection holds its port in TIME_WAIT (Linux: fixed 60s).' }),
  })
  .meta({ description: 'Kernel state of the machines a client group runs on.' });
export type Host = z.output<typeof HostSchema>;

export const PoolSchema = z
  .strictObject({
    maxOpen: countOrInfinite
      .prefault('inf')
      .meta({ description: 'Most connections open at once per (instance, destination node), dialling included. 0 disables the pool (calls fail with `pool_disabled`). gomemcache: unbounded.' }),
    maxIdle: countOrInfinite
      .prefault('inf')
      .meta({ description: 'Idle connections kept per (instance, destination node); a released connection beyond this is closed and its port goes to TIME_WAIT. gomemcache and Go net/http default to 2.' }),
    connectCost: duration.prefault('0s').meta({ description: 'Time to dial a new connection (TCP handshake, TLS).' }),
    checkoutTimeout: durationOrInfinite
      .prefault('inf')
      .meta({ description: 'Longest wait for a connection when the pool is at maxOpen; then the call fails with `checkout_timeout`. "inf" waits forever (the Black Friday bug).' }),
  })
  .meta({ description: 'Connection pool, one per (client instance, destination node). One outstanding request per connection.' });
export type Pool = z.output<typeof PoolSchema>;

export const BackoffSchema = z
  .strictObject({
    base: duration.prefault('0s').meta({ description: 'Delay before the first retry; doubles for each further retry.' }),
    max: duration.prefault('1s').meta({ description: 'Cap on the doubled delay.' }),
    jitter: z
      .enum(['full', 'equal', 'none'])
      .default('full')
      .meta({ description: 'full: uniform in [0, delay]; equal: delay/2 + uniform in [0, delay/2]; none: the delay itself.' }),
  })
  .meta({ description: 'Exponential backoff between attempts.' });

export const RetriesSchema = z
  .strictObject({
    count: z.number().int().min(0).default(0).meta({ description: 'Retries after the first attempt (attempts = 1 + count).' }),
    backoff: BackoffSchema.prefault({}),
  })
  .meta({ description: 'Retries of a failed attempt (any failure reason). Each attempt gets its own timeout.' });
export type Retries = z.output<typeof RetriesSchema>;

export const ClientGroupSchema = z
  .strictObject({
    instances: z
      .number()
      .int()
      .min(1)
      .default(1)
      .meta({ description: 'Independent client instances (processes), each with its own pools. Requests are spread over them round-robin by user request.' }),
    host: componentName
      .optional()
      .meta({ description: 'Name in `hosts`. Instance i of every group on the same host runs on that host’s machine i and shares its port table. Absent: a private host with Linux defaults.' }),
    pool: PoolSchema.prefault({}),
    fanoutLimit: countOrInfinite
      .prefault('inf')
      .refine((n) => n >= 1, 'expected at least 1 (or "inf")')
      .meta({ description: 'Per-item calls of one request in flight at once (errgroup.SetLimit). "inf" = one goroutine per item.' }),
    timeout: durationOrInfinite
      .prefault('inf')
      .meta({ description: 'Per-attempt deadline from sending the request (connection in hand) to the reply; then the connection is closed and the attempt fails with `timeout`. Server work is not cancelled.' }),
    retries: RetriesSchema.prefault({}),
  })
  .meta({ description: 'The caller side of an edge: client instances, their connection pools, timeout, retries and fan-out limit.' });
export type ClientGroup = z.output<typeof ClientGroupSchema>;
