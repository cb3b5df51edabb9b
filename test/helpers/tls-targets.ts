import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createSecureServer,
  createServer as createH2cServer,
  type Http2SecureServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
  type Settings,
} from 'node:http2';
import { createServer, type Server, type ServerOptions } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { RunningTarget } from './targets.ts';

/** A node:https server on 127.0.0.1 and a free port; `sockets` are the TLS sockets it holds open. */
export async function startHttpsTarget(
  options: ServerOptions,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<RunningTarget & { server: Server; sockets: Set<Socket> }> {
  const server = createServer({ keepAliveTimeout: 60_000, ...options }, handler);
  const sockets = new Set<Socket>();
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A handshake the client aborts (it refused the certificate) is the client's outcome to record, not the server's.
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    sockets,
    port,
    url: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface H2Target extends RunningTarget {
  /** Sessions (connections) the server accepted. */
  sessions(): number;
  /** The most streams open at once on one session. */
  maxConcurrentStreams(): number;
  streams(): number;
}

/**
 * An HTTP/2 server on 127.0.0.1: over TLS (h2, ALPN) when `tls` is given, else cleartext with
 * prior knowledge (h2c). It counts sessions and the most streams open at once on one of them.
 */
export async function startH2Target(
  options: { tls?: { key: string; cert: string }; settings?: Settings },
  onStream: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void,
): Promise<H2Target> {
  const server: Http2Server | Http2SecureServer = options.tls
    ? createSecureServer({ ...options.tls, ...(options.settings && { settings: options.settings }) })
    : createH2cServer({ ...(options.settings && { settings: options.settings }) });
  const open = new Set<ServerHttp2Session>();
  let sessions = 0;
  let streams = 0;
  let maxConcurrent = 0;
  server.on('session', (session: ServerHttp2Session) => {
    sessions++;
    open.add(session);
    let active = 0;
    session.on('stream', (stream: ServerHttp2Stream) => {
      streams++;
      maxConcurrent = Math.max(maxConcurrent, ++active);
      stream.on('close', () => active--);
    });
    session.on('close', () => open.delete(session));
    session.on('error', () => {});
  });
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', () => {});
    onStream(stream, headers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    sessions: () => sessions,
    streams: () => streams,
    maxConcurrentStreams: () => maxConcurrent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
