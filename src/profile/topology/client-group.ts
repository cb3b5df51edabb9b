import { z } from 'zod';
import { timeDistribution } from '../distribution.ts';
import { countOrInfinite, duration, durationOrInfinite } from '../units.ts';
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
    sourceAddresses: z.number().int().min(1).default(1).meta({
      description:
        'Source IPs the client dials from, at random (Bluesky’s band-aid: a random address in 127.0.0.0/8). Each has its own port range, so a tuple space holds portRange × sourceAddresses connections; the churn stays.',
    }),
  })
  .meta({ description: 'Kernel state of the machines a client group runs on.' });
export type Host = z.output<typeof HostSchema>;

export const PoolSchema = z
  .strictObject({
    maxOpen: countOrInfinite.prefault('inf').meta({
      description:
        'Most connections open at once per (instance, destination node), dialling included. 0 disables the pool (calls fail with `pool_disabled`). gomemcache: unbounded.',
    }),
    maxIdle: countOrInfinite.prefault('inf').meta({
      description:
        'Idle connections kept per (instance, destination node); a released connection beyond this is closed and its port goes to TIME_WAIT. gomemcache and Go net/http default to 2.',
    }),
    connectCost: duration.prefault('0s').meta({ description: 'Time to dial a new connection (TCP handshake, TLS).' }),
    pipelining: z.number().int().min(1).default(1).meta({
      description:
        'Requests outstanding per connection (pipelining depth; Twitter 2014-03: pipelining so 1–2 connections suffice). 1: one request per connection. Above 1 a timed-out request abandons its slot (the late reply is read and discarded) instead of closing the connection [guess].',
    }),
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
    tokenBucket: z
      .strictObject({
        capacity: z.number().positive().default(10).meta({ description: 'Most tokens an instance holds (and starts with).' }),
        perSuccess: z
          .number()
          .nonnegative()
          .default(0.1)
          .meta({ description: 'Tokens earned per successful attempt; a retry costs one. 0.1 caps retries at ~10% of successes: the SRE retry budget.' }),
      })
      .optional()
      .meta({ description: 'Retry token bucket per client instance (Brooker 2022, AWS SDKs): no token, no retry. Absent: every failure may retry.' }),
  })
  .meta({ description: 'Retries of a failed attempt (any failure reason). Each attempt gets its own timeout.' });
export type Retries = z.output<typeof RetriesSchema>;

export const MarkDownSchema = z
  .strictObject({
    failures: z.number().int().min(1).meta({ description: 'Consecutive failed attempts to one node before this client instance marks it dead (2014-01: 5; 2018-06: 12).' }),
    duration: duration.meta({ description: 'How long the node stays dead for this instance (Twitter: 30 s).' }),
    view: z.enum(['instance', 'shared']).default('instance').meta({
      description:
        'instance: each client instance counts failures and holds nodes dead for itself (2011-08). shared: one membership view — an instance that sees `failures` in a row ejects the node for every instance (the 2011 fix).',
    }),
    then: z.enum(['miss', 'rehash']).default('miss').meta({
      description:
        'Cache calls to a dead node: miss = skip the cache (read the fallback, no fill; 2018-06) — a cache read through this group then needs `onMiss` (refused without: the skip would be an instant success); rehash = use the next live node on the ketama ring, in this instance’s own view (2011-08); with no live node left a read is a miss for `onMiss`, or fails as `no_live_node` without one, as a write does.',
    }),
  })
  .meta({ description: 'Client-side ejection: each instance keeps its own view of which nodes are dead.' });

export const HotKeyCacheSchema = z
  .strictObject({
    sampleRate: z.number().gt(0).max(1).default(0.01).meta({ description: 'Share of cache calls sampled into the detector (Twitter 2018: 1%).' }),
    threshold: z.number().int().min(1).default(10).meta({ description: 'Samples of one key within a window that make it hot.' }),
    window: duration.prefault('1s').meta({
      description: 'Sliding counting window: a key is hot once `threshold` of the samples within the last `window` are of it (a FIFO of samples, as Twitter’s detector kept).',
    }),
    ttl: duration.prefault('10s').meta({ description: 'How long a promoted key is served from the in-process cache.' }),
    refresh: z.boolean().default(false).meta({
      description:
        'On expiry, refresh instead of forgetting: the first read within a ttl after it fetches the key from the cache and renews the local copy for another ttl. false: an expired key goes back to the cache until the detector finds it hot again.',
    }),
  })
  .meta({ description: 'Hot-key detection per client instance (sampled counts) with promotion to an in-process cache: a promoted key’s reads never leave the client.' });

export type HotKeyCache = z.output<typeof HotKeyCacheSchema>;

export const HedgeSchema = z
  .strictObject({
    after: duration.optional().meta({ description: 'Send the hedge when no reply came within this long of the request.' }),
    percentile: z.number().gt(0).lt(100).optional().meta({
      description:
        'Instead of `after`: when no reply came within this percentile of the group’s recent reply times (successful attempts; a decaying histogram updated every 1,024 replies — no hedge before the first 1,024).',
    }),
  })
  .refine((h) => (h.after === undefined) !== (h.percentile === undefined), 'expected exactly one of `after` or `percentile`')
  .meta({
    description:
      'Hedged requests (The Tail at Scale): an attempt still waiting at the threshold sends the same request again to the same destination; the first reply wins and the other request’s connection is dropped (its server work goes on). A hedge needs a connection free at once (idle, a free pipelining slot, or a new one below maxOpen with no connectCost); without one it is not sent. Counted as hedges and hedgesSkipped.',
  });

export const ClosedLoopSchema = z
  .strictObject({
    users: z.number().int().min(1).meta({ description: 'Users, each with one request out at a time.' }),
    thinkTime: timeDistribution.prefault(0).meta({ description: 'Pause between a reply (or failure) and the same user’s next request.' }),
  })
  .meta({
    description:
      'Closed-loop load (only on the `caller` group): users send the profile’s requests in order, each when its previous one has ended and it has thought — not at their scheduled times. Offered load then follows the system: a stall slows the senders and hides its own latency (coordinated omission; the run is flagged INVALID). Requests stop at the end of the run or when the schedule has none left, so give the phases a rate at least users / (thinkTime + response time).',
  });

export const ClientGroupSchema = z
  .strictObject({
    instances: z
      .number()
      .int()
      .min(1)
      .default(1)
      .meta({ description: 'Independent client instances (processes), each with its own pools. Requests are spread over them round-robin by user request.' }),
    host: componentName.optional().meta({
      description:
        'Name in `hosts`. Instance i of every group on the same host runs on that host’s machine i and shares its port table. Absent: a private host that counts TIME_WAIT (60 s) but has no port limit — ephemeral-port exhaustion is modelled only on a host the topology names.',
    }),
    pool: PoolSchema.prefault({}),
    fanoutLimit: countOrInfinite
      .prefault('inf')
      .refine((n) => n >= 1, 'expected at least 1 (or "inf")')
      .meta({ description: 'Per-item calls of one request in flight at once (errgroup.SetLimit). "inf" = one goroutine per item.' }),
    timeout: durationOrInfinite.prefault('inf').meta({
      description:
        'Per-attempt deadline from sending the request (connection in hand) to the reply; then the connection is closed and the attempt fails with `timeout`. Server work is not cancelled.',
    }),
    retries: RetriesSchema.prefault({}),
    markDown: MarkDownSchema.optional(),
    hotKeyCache: HotKeyCacheSchema.optional(),
    closedLoop: ClosedLoopSchema.optional(),
    hedge: HedgeSchema.optional(),
  })
  .meta({ description: 'The caller side of an edge: client instances, their connection pools, timeout, retries and fan-out limit.' });
export type ClientGroup = z.output<typeof ClientGroupSchema>;
