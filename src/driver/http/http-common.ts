import type { Profile } from '../../profile/types.ts';
import { defineGauge } from '../../recorder/gauges.ts';

/* What the HTTP/1.1 and HTTP/2 transports share: their gauges and the size of the value slab. */

export const HTTP_GAUGES = {
  connects: defineGauge('connects', 'count', 'connections', 'connections opened during the interval'),
  waitingForConnection: defineGauge('waitingForConnection', 'count', 'queues', 'due requests waiting for a free connection slot'),
} as const;

/** The largest value a request can carry, so one slab of value bytes serves every request. */
export function maxValueBytes(profile: Profile): number {
  let max = 0;
  const visit = (d: unknown): void => {
    if (d === null || typeof d !== 'object') return;
    for (const [k, v] of Object.entries(d)) {
      if ((k === 'value' || k === 'max' || k === 'median' || k === 'mean') && typeof v === 'number') max = Math.max(max, k === 'value' || k === 'max' ? v : v * 8);
      else visit(v);
    }
  };
  visit(profile.valueSize);
  for (const m of profile.mix) visit(m.valueSize);
  for (const c of profile.clients) visit(c.valueSize);
  return Math.ceil(max) || 1024;
}
