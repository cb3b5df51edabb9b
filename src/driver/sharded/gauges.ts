import { defineGauge } from '../../recorder/gauges.ts';

/**
 * The interval gauges of a client-side sharded cache (memcached, Redis): each under its protocol's
 * name as instance (hits.memcached, hits.redis), keys per shard under shard<i>.
 */
export const SHARDED_GAUGES = {
  hits: defineGauge('hits', 'count', 'hit-ratio', 'gets that found their key during the interval', 'interval'),
  misses: defineGauge('misses', 'count', 'hit-ratio', 'gets that missed during the interval', 'interval'),
  shardKeys: defineGauge('shardKeys', 'count', 'cache', 'keys sent to one shard during the interval', 'interval'),
} as const;
