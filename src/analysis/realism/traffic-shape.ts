import type { Distribution } from '../../profile/distribution.ts';
import type { Profile } from '../../profile/types.ts';
import { allKinds, resolveClients } from '../../schedule/plan.ts';
import { segmentMass } from '../../schedule/rate-curve.ts';

/** The sizes a profile sends, over all its clients and kinds, each weighted by its expected share of requests. */
export interface TrafficSizes {
  batch: Distribution;
  valueSize: Distribution;
}

export function trafficSizes(profile: Profile): TrafficSizes {
  const kinds = allKinds(profile);
  const batch: (Distribution & { weight: number })[] = [];
  const valueSize: (Distribution & { weight: number })[] = [];
  for (const client of resolveClients(profile, kinds)) {
    const requests = client.segments.reduce((sum, s) => sum + segmentMass(s), 0);
    const totalWeight = client.weights.reduce((a, b) => a + b, 0);
    client.weights.forEach((w, i) => {
      const weight = Math.max(requests, 1e-9) * (w / totalWeight);
      batch.push({ ...client.batch[i]!, weight });
      valueSize.push({ ...client.valueSize[i]!, weight });
    });
  }
  return { batch: flatten(batch), valueSize: flatten(valueSize) };
}

/** A weighted set of distributions as one mixture (nested mixtures flattened). */
function flatten(parts: (Distribution & { weight: number })[]): Distribution {
  const of = parts.flatMap(({ weight, ...d }) => {
    const dist = d as Distribution;
    if (dist.type !== 'mixture') return [{ ...dist, weight }];
    const total = dist.of.reduce((sum, c) => sum + c.weight, 0);
    return dist.of.map((c) => ({ ...c, weight: (weight * c.weight) / total }));
  });
  return { type: 'mixture', of };
}
