import type { Profile } from '../../profile/types.ts';
import type { HttpTransportReport } from '../../recorder/driver-report.ts';
import { SHARED_GAUGES, defineGauge, gaugeKey, type GaugeSpec } from '../../recorder/gauges.ts';
import type { HttpOutcomes } from './outcomes.ts';

/* What the HTTP/1.1 and HTTP/2 transports share: their gauges, connection choice, report and the size of the value slab. */

export const HTTP_GAUGES = {
  connects: defineGauge('connects', 'count', 'connections', 'connections opened during the interval', 'interval'),
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

/**
 * Picks a connection with room for one more request: the one the batch is already writing to
 * while it has room (requests of one wake-up share a write), else the next with room, round robin.
 */
export class ConnectionPicker<C extends { readonly hasRoom: boolean }> {
  private next = 0;
  private batch: C | undefined;

  constructor(private readonly connections: readonly C[]) {}

  /** A pacer wake-up begins: its requests start a new shared write. */
  beginBatch(): void {
    this.batch = undefined;
  }

  withRoom(): C | undefined {
    if (this.batch?.hasRoom) return this.batch;
    const n = this.connections.length;
    for (let i = 0; i < n; i++) {
      const c = this.connections[this.next]!;
      this.next = this.next + 1 === n ? 0 : this.next + 1;
      if (c.hasRoom) return (this.batch = c);
    }
    return undefined;
  }
}

/** The transport report both HTTP transports give, from their connections and outcomes. */
export function httpTransportReport(
  connections: readonly { readonly depth: number; readonly connects: number; readonly protocolErrors: number }[],
  outcomes: HttpOutcomes,
  tls: { verified: boolean } | undefined,
): HttpTransportReport {
  return {
    protocol: 'http',
    connections: connections.length,
    pipelining: connections[0]?.depth ?? 0,
    connects: connections.reduce((a, c) => a + c.connects, 0),
    protocolErrors: connections.reduce((a, c) => a + c.protocolErrors, 0),
    statusCodes: outcomes.statusCodes(),
    ...(tls && { tls: { verified: tls.verified } }),
  };
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
