import { TargetError } from '../../target.ts';
import { portOf, addCounts, sumOf } from '../address.ts';
import type { ProtocolSpec, SettingsOf } from '../spec.ts';
import { HTTP_SECTIONS } from './section.ts';

/*
 * HTTP as the project models it: http:// and https:// (TLS; the `http.tls` section holds its
 * options), HTTP/1.1 or, with `http.http2`, HTTP/2 — one target otherwise. The transport is
 * src/driver/http/.
 */

export interface HttpTarget {
  kind: 'http';
  text: string;
  url: URL;
  host: string;
  port: number;
  tls: boolean;
}

export interface HttpTransportReport {
  protocol: 'http';
  connections: number;
  pipelining: number;
  connects: number;
  /** Connections closed because the server broke the protocol (bad status line, a response nobody asked for). */
  protocolErrors: number;
  statusCodes: Record<string, number>;
  /** https:// only: false when `http.tls.insecure` turned certificate verification off. */
  tls?: { verified: boolean };
  /** `http.http2` only: the lowest SETTINGS_MAX_CONCURRENT_STREAMS the server sent (null: none received); `pipelining` is streams per connection. */
  http2?: { serverMaxConcurrentStreams: number | null };
}

function parse(text: string, scheme: string, authority: string): HttpTarget {
  if (authority === '' || /[/?#\s]/.test(authority)) throw new TargetError(text, `expected ${scheme}://host:port with no path (request paths belong in http.requests)`);
  const tls = scheme === 'https';
  const port = portOf(text, /:(\d+)$/.exec(authority)?.[1] ?? (tls ? '443' : '80'));
  let url: URL;
  try {
    url = new URL(`${scheme}://${authority}/`);
  } catch {
    throw new TargetError(text, `"${authority}" is not a valid host:port`);
  }
  return { kind: 'http', text, url, host: url.hostname.replace(/^\[|\]$/g, ''), port, tls };
}

/** The first sender's settings; counts summed; the lowest stream limit any server sent. */
function merge(reports: readonly HttpTransportReport[]): HttpTransportReport {
  const first = reports[0]!;
  const merged: HttpTransportReport = {
    ...first,
    connects: sumOf(reports, (r) => r.connects),
    protocolErrors: sumOf(reports, (r) => r.protocolErrors),
    statusCodes: addCounts(reports.map((r) => r.statusCodes)),
  };
  if (first.http2) {
    const limits = reports.flatMap((r) => (typeof r.http2?.serverMaxConcurrentStreams === 'number' ? [r.http2.serverMaxConcurrentStreams] : []));
    merged.http2 = { serverMaxConcurrentStreams: limits.length > 0 ? Math.min(...limits) : null };
  }
  return merged;
}

function describe(report: HttpTransportReport): string[] {
  const codes = Object.entries(report.statusCodes)
    .map(([code, n]) => `${code} ×${n}`)
    .join(', ');
  const streams = report.http2
    ? `HTTP/2, ${report.pipelining} streams per connection (server limit ${report.http2.serverMaxConcurrentStreams ?? 'none sent'})`
    : `pipelining ${report.pipelining}`;
  return [
    `http: ${report.connections} connections, ${streams}; ${report.connects} connects, ${report.protocolErrors} protocol errors`,
    ...(codes === '' ? [] : [`status codes: ${codes}`]),
    ...(report.tls ? [`TLS: certificate ${report.tls.verified ? 'verified' : 'NOT verified (http.tls.insecure)'}`] : []),
  ];
}

export const HTTP: ProtocolSpec<HttpTarget, HttpTransportReport, SettingsOf<typeof HTTP_SECTIONS>, typeof HTTP_SECTIONS> = {
  name: 'http',
  forms: 'http://host:port, https://host:port',
  schemes: ['http', 'https'],
  parse,
  sections: HTTP_SECTIONS,
  simulated: false,
  hosts: (target) => [target.host],
  inFlightBound: (profile) => profile.http.inFlightCap,
  resolvesSecrets: true,
  refusesUnfitKeys: false,
  realism: {
    connectionsPerClient: (profile) => profile.http.connections,
    shards: () => undefined,
    encrypted: (target) => target.tls,
  },
  timeline: { events: new Set(['exec', 'shift']) },
  report: { merge, describe, connectionPool: (r) => ({ connections: r.connections, slots: r.connections * r.pipelining }) },
};
