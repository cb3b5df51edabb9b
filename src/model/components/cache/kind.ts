import { keyIds } from '../../../schedule/keys.ts';
import { defineGauge, gaugeKey, SHARED_GAUGES } from '../../../recorder/gauges.ts';
import { createSampler } from '../../../schedule/sample.ts';
import { shardSlots } from '../../../profile/topology/timeline.ts';
import type { ModelComponent } from '../../core/component.ts';
import type { ComponentKind } from '../../core/wiring.ts';
import type { ServerConnections } from '../../core/server-connections.ts';
import { CacheNode, type CacheStats } from './cache.ts';
import type { CacheOpStats } from './op-stats.ts';
import { perShard } from './shard-specs.ts';
import { STALE_CAUSES } from './stale.ts';

const SHARDS = defineGauge('shards', 'count', 'cache', 'shards in the ring at the sample');
const STALE_READS = defineGauge('staleReads', 'count', 'cache', 'hits on a copy out of date for longer than the cache’s staleAfter, since the start', 'run');
const STALE_READS_IN_WINDOW = defineGauge(
  'staleReadsInWindow',
  'count',
  'cache',
  'hits on a copy out of date for at most staleAfter (the normal window between a database write and the cache update), since the start',
  'run',
);
const STALE_READS_BY_CAUSE = defineGauge(
  'staleReadsByCause',
  'count',
  'cache',
  'staleReads by why the copy was out of date (.markDown, .outage, .restart, .membership: a shard away or ejected came back warm or was written past; .failedSet: a set that never landed), since the start',
  'run',
);
const THROTTLED_OPS = defineGauge('throttledOps', 'count', 'cache', 'ops that waited for the next CPU-quota period, since the start', 'run');
const SHARD_CONNECTIONS_MAX = defineGauge('shardConnectionsMax', 'count', 'connections', 'open connections to the busiest shard at the sample');
const DEAD_SHARDS = defineGauge('deadShards', 'count', 'cache', 'shards OOM-killed and not restarted at the sample');
const MEMORY_PRESSURE = defineGauge('memoryPressure', 'ratio', 'cache', 'memory of the worst live shard as a share of what it can allocate');
const NIC_BACKLOG_MS = defineGauge('nicBacklogMs', 'ms', 'cache', 'time the busiest shard NIC needs to send what is queued on it');
const SHARD_LOAD_RPS = defineGauge('shardLoadRps', 'rps', 'cache', 'ops per second over the interval: the busiest shard (.hottest) and the mean of the others (.others)');
const SHARD_HIT_RATIO = defineGauge('shardHitRatio', 'ratio', 'hit-ratio', 'hits / gets over the interval: on the busiest shard (.hottest) and on all the others (.others)');
const ACCEPT_QUEUE_MAX = defineGauge('acceptQueueMax', 'count', 'connections', 'connections waiting in the longest shard accept queue (backlog) at the sample');
const HOTTEST_SHARD = defineGauge('hottestShard', 'count', 'cache', 'slot number of the shard that served the most ops over the interval');

/** Server-side connection figures of a cache, over its shards. */
export interface CacheConnectionDetails {
  /** Most fds one shard held at once. */
  connectionsHighWater: number;
  /** Dials that found a shard's fd table full: parked in its accept queue, and beyond it (refused or dropped). */
  acceptQueued: number;
  acceptOverflows: number;
  acceptedFromQueue: number;
}

export type CacheDetails = CacheStats &
  CacheConnectionDetails & {
    shards: number;
    copiesOfTop100?: { mean: number; max: number };
    misses: number;
    hitRatio: number;
    evictions: number;
    /** Only once a request made an op other than get/set or set a TTL: runs of plain gets and sets keep their result.json. */
    operations?: CacheOpStats;
  };

/** Sharded look-aside caches: one node per shard slot (initial shards plus those the timeline adds). */
export const cacheKind: ComponentKind<CacheNode> = {
  section: 'caches',
  nodeSlots: (name, wiring) => shardSlots(name, wiring.topology.caches[name]!.shards, wiring.topology.timeline),
  // A cache is never the read a miss falls back to: a miss in it falls back to something else.
  accepts: ['call'],
  keyed: (name, wiring) => wiring.get(cacheKind, name),
  build(wiring) {
    const { ctx, topology, plan } = wiring;
    if (Object.values(topology.caches).some((c) => c.copies)) {
      const keys = keyIds(plan.keyspace);
      ctx.keyVersion = new Uint32Array(keys);
      ctx.keyWrittenAtUs = new Float64Array(keys);
      ctx.keyPrevWrittenAtUs = new Float64Array(keys);
    }
    for (const [name, spec] of Object.entries(topology.caches)) {
      const r = wiring.rng(`cache:${name}`);
      // Value sizes draw from their own stream, so turning the NIC on does not shift service times.
      const values = wiring.rng(`cache:${name}:values`);
      const valueSize = createSampler(spec.valueSize, values);
      const hotValueSize = spec.hotKeyValueSize ? createSampler(spec.hotKeyValueSize, values) : valueSize;
      const nodeBase = wiring.firstNode(name);
      const slots = wiring.nodeSlots(name);
      const shards = perShard(spec, slots);
      // Each class's service time draws from the cache's stream, like the cache's own.
      const own = createSampler(spec.serviceTime, r);
      const byClass = spec.shardClasses.map((c) => (c.serviceTime !== undefined ? createSampler(c.serviceTime, r) : own));
      const serviceTime = Array.from(shards.serviceTimeClass, (c) => (c < 0 ? own : byClass[c]!));
      const cache = new CacheNode(ctx, {
        name,
        spec,
        nodeBase,
        slots,
        keyspace: plan.keyspace,
        serviceTime,
        shards,
        valueSize,
        hotValueSize,
        ...(spec.itemMemory ? { itemValueSize: createSampler(spec.valueSize, wiring.rng(`cache:${name}:items`)) } : {}),
        lossRng: wiring.rng(`cache:${name}:loss`),
        faultRng: wiring.rng(`cache:${name}:faults`),
        standingLoss: shards.loss,
      });
      ctx.connectionLimit.set(shards.connectionLimit, nodeBase);
      ctx.serverConns.backlogLimit.set(shards.backlog, nodeBase);
      ctx.serverConns.dropOverflow.fill(spec.backlogOverflow === 'drop' ? 1 : 0, nodeBase, nodeBase + slots);
      wiring.add(
        cacheKind,
        cache,
        cacheComponent(cache, ctx.connections, () => connectionDetails(cache, ctx.serverConns)),
      );
    }
  },
};

function connectionDetails(cache: CacheNode, conns: ServerConnections): CacheConnectionDetails {
  const details = { connectionsHighWater: 0, acceptQueued: 0, acceptOverflows: 0, acceptedFromQueue: cache.acceptQueue.accepted };
  for (let node = cache.nodeBase; node < cache.nodeBase + cache.slots; node++) {
    details.connectionsHighWater = Math.max(details.connectionsHighWater, conns.highWater[node]!);
    details.acceptQueued += conns.backlogged[node]!;
    details.acceptOverflows += conns.overflowed[node]!;
  }
  return details;
}

function cacheComponent(cache: CacheNode, connections: Int32Array, connectionFigures: () => CacheConnectionDetails): ModelComponent<CacheDetails> {
  const name = cache.name;
  const key = {
    hitRatio: gaugeKey(SHARED_GAUGES.hitRatio, name),
    shards: gaugeKey(SHARDS, name),
    staleReads: gaugeKey(STALE_READS, name),
    staleReadsInWindow: gaugeKey(STALE_READS_IN_WINDOW, name),
    staleByCause: STALE_CAUSES.map((cause) => [cause, gaugeKey(STALE_READS_BY_CAUSE, `${name}.${cause}`)] as const),
    throttledOps: gaugeKey(THROTTLED_OPS, name),
    shardConnectionsMax: gaugeKey(SHARD_CONNECTIONS_MAX, name),
    deadShards: gaugeKey(DEAD_SHARDS, name),
    memoryPressure: gaugeKey(MEMORY_PRESSURE, name),
    nicBacklogMs: gaugeKey(NIC_BACKLOG_MS, name),
    hottestRps: gaugeKey(SHARD_LOAD_RPS, `${name}.hottest`),
    othersRps: gaugeKey(SHARD_LOAD_RPS, `${name}.others`),
    hottestHitRatio: gaugeKey(SHARD_HIT_RATIO, `${name}.hottest`),
    othersHitRatio: gaugeKey(SHARD_HIT_RATIO, `${name}.others`),
    hottestShard: gaugeKey(HOTTEST_SHARD, name),
    acceptQueueMax: gaugeKey(ACCEPT_QUEUE_MAX, name),
  };
  const backlog = cache.backlogged;
  const copies = cache.lru.copies;
  let lastGets = 0;
  let lastHits = 0;
  return {
    name,
    gaugeSpecs: [
      SHARED_GAUGES.hitRatio,
      SHARDS,
      ...(copies ? [STALE_READS, STALE_READS_IN_WINDOW, STALE_READS_BY_CAUSE] : []),
      THROTTLED_OPS,
      SHARD_CONNECTIONS_MAX,
      // Both only move once memory is modelled (a dead shard is an OOM kill).
      ...(cache.memory.modelled ? [DEAD_SHARDS, MEMORY_PRESSURE] : []),
      NIC_BACKLOG_MS,
      SHARD_LOAD_RPS,
      SHARD_HIT_RATIO,
      HOTTEST_SHARD,
      ...(backlog ? [ACCEPT_QUEUE_MAX] : []),
    ],
    gauges(into) {
      // The hit ratio covers the time since the previous sample; 0 when the cache saw no get.
      const stats = cache.stats;
      const gets = stats.gets - lastGets;
      const hits = stats.hits - lastHits;
      into[key.hitRatio] = gets > 0 ? hits / gets : 0;
      into[key.shards] = cache.shards;
      if (copies) {
        into[key.staleReads] = stats.staleReads;
        into[key.staleReadsInWindow] = stats.staleReadsInWindow;
        for (const [cause, at] of key.staleByCause) into[at] = stats.staleReadsByCause[cause];
      }
      into[key.throttledOps] = stats.throttled;
      let conns = 0;
      for (let s = 0; s < cache.slots; s++) conns = Math.max(conns, connections[cache.nodeBase + s]!);
      into[key.shardConnectionsMax] = conns;
      const pressure = cache.memoryPressure();
      if (pressure > 0 || cache.memory.deadCount > 0) {
        into[key.deadShards] = cache.memory.deadCount;
        into[key.memoryPressure] = pressure;
      }
      into[key.nicBacklogMs] = cache.nicBacklogUs() / 1000;
      const load = cache.sampleShardLoad();
      into[key.hottestRps] = Math.round(load.hottestRps * 10) / 10;
      into[key.othersRps] = Math.round(load.othersRps * 10) / 10;
      into[key.hottestHitRatio] = load.hottestHitRatio;
      into[key.othersHitRatio] = load.othersHitRatio;
      into[key.hottestShard] = load.hottest;
      if (backlog) into[key.acceptQueueMax] = cache.acceptQueue.longest();
      lastGets = stats.gets;
      lastHits = stats.hits;
    },
    details: () => {
      const stats = cache.stats;
      return {
        ...stats,
        ...connectionFigures(),
        shards: cache.shards,
        ...(copies ? { copiesOfTop100: copiesOfTop(cache, 100) } : {}),
        misses: stats.gets - stats.hits,
        hitRatio: stats.gets > 0 ? stats.hits / stats.gets : 0,
        evictions: cache.lru.evictions,
        ...(cache.opsUsed ? { operations: operationCounts(cache) } : {}),
      };
    },
  };
}

/** The op counters with the figures the cache's own stats hold (gets, hits, evictions). */
function operationCounts(cache: CacheNode): CacheOpStats {
  const { gets, hits } = cache.stats;
  return { ...cache.ops, cmd_get: gets, get_hits: hits, get_misses: gets - hits, evictions: cache.lru.evictions };
}

/** Shards holding a copy of each of the `n` most popular keys (ids are popularity ranks): mean and max. */
function copiesOfTop(cache: CacheNode, n: number): { mean: number; max: number } {
  let sum = 0;
  let max = 0;
  for (let key = 0; key < n; key++) {
    const c = cache.lru.copiesOf(key);
    sum += c;
    max = Math.max(max, c);
  }
  return { mean: sum / n, max };
}
