import type { Distribution } from '../../profile/distribution.ts';
import type { Profile } from '../../profile/types.ts';
import { formatBytes, formatCount } from '../format.ts';
import { INCIDENT } from './incidents.ts';
import { PRODUCTION_CLUSTERS, type ProductionCluster } from './production-clusters.ts';
import { flag } from './flag.ts';
import type { ProfileRule, RealismContext } from './types.ts';

/*
 * Flags that place a cache profile among the 54 production clusters of the public Twitter table
 * (production-clusters.ts): where a profile's shape is one no cluster has, the flag says so with
 * the clusters' range. They judge caches — a memcached:// target, or a model with caches — and
 * stand aside when the profile's own production: section says what its production is.
 */

/** The clusters' figures of one column, sorted, and how to say them. */
function spread(values: (number | undefined)[]): { sorted: number[]; median: number; min: number; max: number } {
  const sorted = values.filter((v): v is number => v !== undefined).sort((a, b) => a - b);
  return { sorted, median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
}

export const CLUSTER_ZIPF = spread(PRODUCTION_CLUSTERS.map((c) => c.zipfAlpha));
export const CLUSTER_VALUE_SIZES = spread(PRODUCTION_CLUSTERS.map((c) => c.valueSize));

/** How the Zipf exponents of production clusters are said in a flag: "Zipf 0.0–2.7 over 52 Twitter clusters, median 1.3". */
export function clusterZipfRange(): string {
  const z = CLUSTER_ZIPF;
  return `Zipf ${z.min.toFixed(1)}–${z.max.toFixed(1)} over ${z.sorted.length} Twitter production clusters, median ${z.median.toFixed(1)}`;
}

/** Clusters whose fitted exponent is above `s`. */
export function clustersMoreSkewed(s: number): number {
  return CLUSTER_ZIPF.sorted.filter((alpha) => alpha > s).length;
}

/** A cache run: its protocol counts shards (a client-side sharded cache, or the model's caches). */
const isCache = ({ profile, target, protocol }: RealismContext): boolean => protocol.realism.shards(target, profile) !== undefined;

/** Every value size the profile can send is one number. */
function fixedSize(profile: Profile): number | undefined {
  const sizes: Distribution[] = [
    profile.valueSize,
    ...profile.mix.flatMap((m) => (m.valueSize ? [m.valueSize] : [])),
    ...profile.clients.flatMap((c) => (c.valueSize ? [c.valueSize] : [])),
  ];
  const values = new Set(sizes.map((d) => (d.type === 'fixed' ? d.value : Number.NaN)));
  return values.size === 1 && !Number.isNaN([...values][0]) ? [...values][0] : undefined;
}

export const fixedValueSize: ProfileRule = (context) => {
  const { profile } = context;
  if (!isCache(context) || profile.production?.valueSize) return [];
  const size = fixedSize(profile);
  if (size === undefined) return [];
  const v = CLUSTER_VALUE_SIZES;
  return [
    flag(
      'value-size-fixed',
      'warn',
      'every value one size',
      `values all ${formatBytes(size)}: the mean value sizes of ${v.sorted.length} Twitter production clusters span ${formatBytes(v.min)}–${formatBytes(v.max)} (median ${formatBytes(v.median)}), and slab allocators, memory and the network all feel the spread`,
      INCIDENT.twitter2018a,
      'give valueSize a distribution (lognormal, or empirical from your traffic: stampede trace fit derives one)',
    ),
  ];
};

/** The share of the mix that writes, as the target's protocol maps kinds to operations; undefined for one that maps none. */
function writeShare({ profile, protocol }: RealismContext): number | undefined {
  const writes = protocol.realism.writes;
  if (writes === undefined) return undefined;
  const total = profile.mix.reduce((sum, m) => sum + m.weight, 0);
  const written = profile.mix.filter((m) => writes(profile, m.kind)).reduce((sum, m) => sum + m.weight, 0);
  return total > 0 ? written / total : 0;
}

/** Each cluster's share of requests that are not reads (get, gets), from the table's "get:0.93 set:0.07". */
const CLUSTER_WRITE_SHARES = PRODUCTION_CLUSTERS.filter((c) => c.operations !== '').map((c) =>
  c.operations
    .split(' ')
    .map((part) => part.split(':') as [string, string])
    .filter(([op]) => op !== 'get' && op !== 'gets')
    .reduce((sum, [, share]) => sum + Number(share), 0),
);
const CLUSTER_WRITERS = CLUSTER_WRITE_SHARES.filter((w) => w > 0).length;
const CLUSTER_HEAVY_WRITERS = CLUSTER_WRITE_SHARES.filter((w) => w > 0.3).length;

/**
 * Reads only, on a real cache. The model stays out: its shipped incident rehearsals model read
 * paths on purpose (their writes are not what the incident was about).
 */
export const readsOnly: ProfileRule = (context) => {
  if (context.protocol.simulated || !isCache(context) || (writeShare(context) ?? 1) > 0) return [];
  return [
    flag(
      'reads-only',
      'info',
      'reads only',
      `every request is a get: ${CLUSTER_WRITERS} of ${CLUSTER_WRITE_SHARES.length} Twitter production clusters also write (set, add, cas, incr, delete), ${CLUSTER_HEAVY_WRITERS} of them in more than 30% of requests`,
      INCIDENT.twitter2016b,
      `add the writes your cache takes to the mix (kind set or delete, or ${context.protocol.name}.operations), e.g. from stampede trace stats of its traffic`,
    ),
  ];
};

/** Keys drawn uniformly, said against production: the evidence key-skew gives without a production: section. */
export function uniformKeysEvidence(count: number, topShare: string): string {
  return `${formatCount(count)} keys drawn uniformly (the top key gets ${topShare} of lookups): production cache clusters are skewed, ${clusterZipfRange()}`;
}

/** The production cluster a profile names itself after (the gallery's `name: cluster10-add-heavy`), if any. */
function namedCluster(profile: Profile): ProductionCluster | undefined {
  const match = /^(cluster\d+)(?:\b|-)/.exec(profile.name);
  return match ? PRODUCTION_CLUSTERS.find((c) => c.cluster === match[1]) : undefined;
}

/** A one-hit-wonder share worth reproducing, percent of keys. */
const ONE_HIT_WONDER_PCT = 1;
const CLUSTER_ONE_HIT = PRODUCTION_CLUSTERS.filter((c) => c.oneHitWonderPct !== undefined);
const CLUSTERS_WITH_ONE_HIT = CLUSTER_ONE_HIT.filter((c) => c.oneHitWonderPct! >= ONE_HIT_WONDER_PCT).length;
const CLUSTER_ONE_HIT_MEDIAN = spread(CLUSTER_ONE_HIT.map((c) => c.oneHitWonderPct)).median;

/**
 * No one-hit wonders, where production has them: keys asked for once are a large part of many
 * clusters' traffic, and each is a compulsory miss that only pollutes the LRU. A key file (the
 * production keys themselves) already carries them.
 */
export const noOneHitWonders: ProfileRule = (context) => {
  const { profile } = context;
  if (!isCache(context) || (profile.keys.oneHitWonders ?? 0) > 0 || profile.keys.file !== undefined) return [];
  const cluster = namedCluster(profile);
  const fix = 'set keys.oneHitWonders to the share of requests whose key is never asked for again (stampede trace fit derives it from a trace)';
  if (cluster !== undefined) {
    const pct = cluster.oneHitWonderPct;
    if (pct === undefined || pct < ONE_HIT_WONDER_PCT) return [];
    return [
      flag(
        'one-hit-wonders',
        'warn',
        'no one-hit wonders',
        `no key is asked for only once by design, yet ${pct}% of ${cluster.cluster}'s keys are (Twitter production, 2020)`,
        INCIDENT.twitter2016b,
        fix,
      ),
    ];
  }
  if ((writeShare(context) ?? 0) === 0) return [];
  return [
    flag(
      'one-hit-wonders',
      'info',
      'no one-hit wonders',
      `no key is asked for only once by design: ${CLUSTERS_WITH_ONE_HIT} of ${CLUSTER_ONE_HIT.length} Twitter production clusters have ≥ ${ONE_HIT_WONDER_PCT}% of keys asked for once (median ${CLUSTER_ONE_HIT_MEDIAN}%)`,
      INCIDENT.twitter2016b,
      fix,
    ),
  ];
};

const CLUSTERS_WITH_TTLS = PRODUCTION_CLUSTERS.filter((c) => c.commonTtls !== '').length;

/** The profile's writes never expire: no write kind of the mix (as the target's protocol maps kinds; a delete aside) has a ttl, and no model cache a ttl of its own. */
function writesWithoutTtl({ profile, protocol }: RealismContext): boolean {
  const writes = protocol.realism.writes;
  if (writes === undefined) return false;
  const written = profile.mix.filter((m) => m.kind !== 'delete' && writes(profile, m.kind));
  if (written.length === 0 || written.some((m) => m.ttl !== undefined)) return false;
  return !Object.values(profile.topology?.caches ?? {}).some((c) => Number.isFinite(c.ttl));
}

/**
 * Writes with no TTL, where production sets one on every write: memory then fills with items that
 * would have expired, and the hit ratio, evictions and memory all differ from production's.
 */
export const noTtl: ProfileRule = (context) => {
  const { profile } = context;
  if (!isCache(context) || !writesWithoutTtl(context)) return [];
  const cluster = namedCluster(profile);
  const fix = "give each write kind of the mix its ttl (e.g. ttl: 300s, or an empirical mix of production's TTLs: stampede trace fit derives them)";
  if (cluster !== undefined && cluster.commonTtls === '') return [];
  return [
    cluster !== undefined
      ? flag(
          'no-ttl',
          'warn',
          'writes never expire',
          `no write sets a TTL, yet ${cluster.cluster}'s writes set ${cluster.commonTtls} (Twitter production, 2020)`,
          INCIDENT.twitter2016b,
          fix,
        )
      : flag(
          'no-ttl',
          'info',
          'writes never expire',
          `no write sets a TTL: the writes of all ${CLUSTERS_WITH_TTLS} Twitter production clusters with a TTL column set them`,
          INCIDENT.twitter2016b,
          fix,
        ),
  ];
};
