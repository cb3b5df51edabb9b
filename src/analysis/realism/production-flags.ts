import type { Distribution } from '../../profile/distribution.ts';
import type { Profile } from '../../profile/types.ts';
import { formatBytes, formatCount } from '../format.ts';
import { INCIDENT } from './incidents.ts';
import { PRODUCTION_CLUSTERS } from './production-clusters.ts';
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

/** Reads only, on a real cache (the model sends every kind as a read, so there it says nothing). */
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
