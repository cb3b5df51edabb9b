import type { Profile } from '../../profile/types.ts';
import { SHARED_GAUGES, defineGauge, gaugeKey, type GaugeSpec } from '../../recorder/gauges.ts';

/* What the HTTP/1.1 and HTTP/2 transports share: their gauges and the size of the value slab. */

export const HTTP_GAUGES = {
  connects: defineGauge('connects', 'count', 'connections', 'connections opened during the interval'),
  waitingForConnection: defineGauge('waitingForConnection', 'count', 'queues', 'due requests waiting for a free connection slot'),
} as const;

/**
 * The connection gauges both transports write once per interval: connections open now, opened
 * during the interval (reconnects show here), and due requests waiting for a free slot.
 */
export class ConnectionGauges {
  readonly specs: readonly GaugeSpec[] = [SHARED_GAUGES.openConnections, HTTP_GAUGES.connects, HTTP_GAUGES.waitingForConnection];
  private lastConnects = 0;

  write(into: Record<string, number>, connections: readonly { readonly connected: boolean; readonly connects: number }[], waiting: number): void {
    let open = 0;
    let connects = 0;
    for (const c of connections) {
      if (c.connected) open++;
      connects += c.connects;
    }
    into[gaugeKey(SHARED_GAUGES.openConnections, 'http')] = open;
    into[gaugeKey(HTTP_GAUGES.connects, 'http')] = connects - this.lastConnects;
    into[gaugeKey(HTTP_GAUGES.waitingForConnection, 'http')] = waiting;
    this.lastConnects = connects;
  }
}

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
