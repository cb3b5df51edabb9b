import { z } from 'zod';
import { sizeDistribution, timeDistribution } from '../distribution.ts';
import { countOrInfinite, duration, durationOrInfinite } from '../units.ts';
import { positiveCountOrInfinite, QueueSchema } from './common.ts';
import { ShardClassSchema } from './shard-classes.ts';

export const HASH_NAMES = ['fnv1_32', 'fnv1a_32', 'murmur3', 'md5'] as const;
export type HashName = (typeof HASH_NAMES)[number];

const rejoinMode = (warm: string) => z.enum(['cold', 'warm']).meta({ description: `cold: the shard is flushed as it comes back (cold misses). warm: ${warm}` });

/** Why a shard was away decides whether it may keep its copies, per cause. */
export const RejoinSchema = z
  .strictObject({
    membership: rejoinMode('it keeps what it held when removeShards took it out (a later addShards brings the last removed back first).').default('warm'),
    markDown: rejoinMode(
      'it keeps its copies when a client view stops holding it dead — the shared view once for every instance, an instance view once per instance (cold: the node is flushed each time one view takes it back).',
    ).default('warm'),
    outage: rejoinMode('it keeps its contents through a `blip` with `down: true` (the process lived; only its network was gone).').default('warm'),
    restart: rejoinMode(
      'a health-check monitor’s restart keeps the contents (memcached’s warm restart from a memory file); cold: the process comes back empty. An OOM kill always loses them.',
    ).default('cold'),
  })
  .meta({
    description:
      'How a shard comes back after it was away, per cause. Writes made while it was away went elsewhere or failed, so a warm shard serves what it held — stale copies (counted by cause in staleReadsByCause, with copies); a cold one misses instead.',
  });
export type Rejoin = z.output<typeof RejoinSchema>;

export const CacheSchema = z
  .strictObject({
    shards: z.number().int().min(1).default(1).meta({ description: 'Cache nodes; a key lives on exactly one.' }),
    hash: z.enum(HASH_NAMES).default('murmur3').meta({
      description:
        'Hash of the key’s UTF-8 name: fnv1_32 (FNV-1, multiply then xor), fnv1a_32 (xor then multiply), murmur3 (x86_32, seed 0), md5 (first 4 digest bytes, little-endian: ketama’s default).',
    }),
    placement: z.enum(['modulo', 'ketama']).default('modulo').meta({
      description:
        'modulo: shard = hash mod shards (a membership change moves almost every key). ketama: consistent hashing, 160 MD5-derived points per shard (libmemcached/twemproxy); a key goes to the first point at or after its hash, so adding one shard to N moves ~1/(N+1) of the keys.',
    }),
    workers: positiveCountOrInfinite.prefault(4).meta({ description: 'Worker threads per shard (memcached -t, default 4).' }),
    queue: QueueSchema.prefault({}).meta({ description: 'Wait queue per shard.' }),
    serviceTime: timeDistribution.prefault('20us').meta({ description: 'Time per get or set on a shard.' }),
    capacity: countOrInfinite.prefault('inf').meta({ description: 'Keys per shard, evicted least-recently-used first.' }),
    itemMemory: z
      .strictObject({
        limitMb: z.number().positive().meta({ description: 'Item memory per shard, MB (memcached -m): entries are evicted LRU once their slab chunks fill it.' }),
        growthFactor: z.number().gt(1).default(1.25).meta({ description: 'Slab chunk growth factor (memcached -f).' }),
      })
      .optional()
      .meta({
        description:
          'Hold entries by bytes as memcached does: each takes its slab chunk (a 56-byte header, key, value) and a shard holds limitMb of them, beside `capacity`. Values are the cache’s valueSize, one draw per key. Absent: capacity alone (keys).',
      }),
    warm: z.boolean().default(false).meta({ description: 'Start with every shard filled by its most popular keys (ids are popularity ranks). false: start empty.' }),
    valueSize: sizeDistribution.prefault(0).meta({ description: 'Bytes of each key’s value, drawn once per key. With `nic`, a hit’s reply sends this many bytes.' }),
    hotKeyValueSize: sizeDistribution.optional().meta({ description: 'Value bytes of the profile’s named hot keys (default: valueSize).' }),
    nic: z
      .union([z.number().positive(), z.literal('inf')])
      .default('inf')
      .transform((v) => (v === 'inf' ? Number.POSITIVE_INFINITY : v))
      .meta({ description: 'NIC bandwidth per shard, bytes/s (1 Gb/s = 125000000). Replies queue FIFO for the wire after the worker is done. "inf": the NIC is never the limit.' }),
    replyOverhead: z.number().int().min(0).default(50).meta({ description: 'Bytes of a reply besides the value (headers; the whole of a miss).' }),
    connectionLimit: countOrInfinite.prefault('inf').meta({ description: 'Connections a shard accepts (fd limit, memcached -c); a dial beyond it fails with connection_refused.' }),
    backlog: countOrInfinite.prefault(0).meta({
      description:
        'Accept queue per shard beyond connectionLimit (listen backlog): the kernel completes these handshakes, the client sends its request and it waits until an fd frees. 0: a dial at the limit is refused (as with no backlog). Twitter 2014-01: 1024; the fix 128.',
    }),
    backlogOverflow: z.enum(['refuse', 'drop']).default('refuse').meta({
      description:
        'A dial when the fd table and backlog are full: refuse = RST, `connection_refused` at once (tcp_abort_on_overflow=1); drop = the SYN is dropped and the attempt fails at the client’s timeout (Linux default).',
    }),
    connectionOverhead: z.number().nonnegative().default(0).meta({
      description:
        'Service-time cost of open connections: each op takes serviceTime × (1 + connectionOverhead × open connections / 1000) — kernel networking work that grows with sockets (Twitter 2014-01, 2018-06). 0: none.',
    }),
    memory: z
      .strictObject({
        limit: z.number().positive().meta({ description: 'MB of kernel + process memory per host.' }),
        base: z.number().nonnegative().default(0).meta({ description: 'MB in use at idle.' }),
        perConnection: z.number().nonnegative().default(0).meta({ description: 'MB of socket buffers per open connection.' }),
        perQueuedOp: z.number().nonnegative().default(0).meta({ description: 'MB per request waiting or in service (unread requests, unsent replies in socket buffers).' }),
        fragmentation: z
          .number()
          .min(0)
          .max(0.95)
          .default(0)
          .meta({ description: 'Share of the limit unusable for kernel allocations (hosts up ~2 years, order-3 pages). The fix of 2016-01: restart hosts more often (0).' }),
        restartDelay: durationOrInfinite
          .prefault('inf')
          .meta({ description: 'An OOM-killed shard comes back (empty) after this; "inf": only an operator brings it back (timeline restoreShards).' }),
      })
      .optional()
      .meta({ description: 'Per-shard memory: used > limit × (1 − fragmentation) kills the shard (its contents are lost; it refuses connections while dead).' }),
    cpuQuota: z
      .strictObject({
        cores: z.number().positive().meta({ description: 'CPU the container may use per period, in cores (CFS quota ÷ period).' }),
        period: duration.prefault('100ms').meta({ description: 'CFS period (Linux default 100 ms).' }),
      })
      .optional()
      .meta({
        description:
          'Container CPU quota per shard: once a period’s quota of service time is used, work waits for the next period (throttling) — Twitter 2014-03’s "throttling death spiral".',
      }),
    shardClasses: z.array(ShardClassSchema).default([]).meta({
      description:
        'Shards that differ from these settings (a later class wins where two select a shard): e.g. [{fraction: 0.2, memory: {limit: 50}}] or [{every: {mod: 2, rem: 0}, nic: 125000000}]. Cluster-wide rules (autoRemove, placement) see one cache.',
    }),
    copies: z.boolean().default(false).meta({
      description:
        'Track a copy and its version per (key, shard), so clients with different views fill a key on several shards and an old copy stays readable: hits on an out-of-date copy count as stale reads. Memory grows with keys × shards: small keyspaces only.',
    }),
    ttl: durationOrInfinite.prefault('inf').meta({
      description:
        'Time to live of an entry from its last set: a get that finds it older misses (an expiry miss, counted in `expired`) and drops it. "inf": entries leave only by eviction, flush or a dead shard. A warm start counts as set at 0.',
    }),
    rejoin: RejoinSchema.prefault({}),
    staleAfter: duration.prefault('1s').meta({
      description:
        'With copies: a hit on an old copy counts in `staleReads` only when the copy has been out of date for longer than this; within it (the normal window between a database write and the cache set that follows) it counts in `staleReadsInWindow`.',
    }),
    packetLoss: z
      .strictObject({
        shards: z.number().int().min(1).meta({ description: 'The first this-many shards drop packets (Twitter 2011-08: softirq on CPU0 without IRQ affinity).' }),
        probability: z.number().min(0).max(1).meta({ description: 'Chance a request to one of them is lost: no reply, so the client times out.' }),
      })
      .optional(),
    autoRemove: z
      .strictObject({
        maxDead: z
          .number()
          .int()
          .min(0)
          .meta({ description: 'The cluster manager takes dead shards out of the ring only while at most this many are dead (2016-01: too many dead → none removed).' }),
      })
      .optional(),
  })
  .meta({ description: 'A sharded look-aside cache (memcached-like) holding keys, not values.' });
export type Cache = z.output<typeof CacheSchema>;
