import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RunningTarget {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 and a free port; keep-alive sockets are destroyed on close. */
export async function startHttpTarget(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<RunningTarget & { server: Server }> {
  const server = createServer({ keepAliveTimeout: 60_000 }, handler);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A target that stops answering for `stallMs` every `periodMs`: a request that arrives during a
 * stall is answered when the stall ends, any other at once.
 */
export async function startStallingTarget(stallMs: number, periodMs: number): Promise<RunningTarget> {
  const t0 = performance.now();
  return startHttpTarget((req, res) => {
    req.resume();
    req.on('end', () => {
      const phase = (performance.now() - t0) % periodMs;
      const answer = () => res.end('ok');
      if (phase < stallMs) setTimeout(answer, stallMs - phase);
      else answer();
    });
  });
}

/**
 * A target with a hard rate limit: a token bucket of `rps` tokens a second holding at most `burst`,
 * one token per request, 503 when none is left, 200 otherwise. Optionally it stalls once: the
 * request numbered `stall.afterRequests` and every one that arrives in the next `stall.ms` are
 * answered when the stall ends (the tokens still count when they arrive).
 */
export async function startTokenBucketTarget(options: {
  rps: number;
  burst: number;
  stall?: { afterRequests: number; ms: number };
}): Promise<RunningTarget & { requests(): number }> {
  let tokens = options.burst;
  let refilledAt = performance.now();
  let requests = 0;
  let stallEndsAt = 0;
  const target = await startHttpTarget((req, res) => {
    req.resume();
    req.on('end', () => {
      const now = performance.now();
      tokens = Math.min(options.burst, tokens + ((now - refilledAt) * options.rps) / 1000);
      refilledAt = now;
      requests++;
      if (options.stall && requests === options.stall.afterRequests) stallEndsAt = now + options.stall.ms;
      res.statusCode = tokens >= 1 ? 200 : 503;
      if (res.statusCode === 200) tokens -= 1;
      const body = res.statusCode === 200 ? 'ok' : 'over the limit';
      if (now < stallEndsAt) setTimeout(() => res.end(body), stallEndsAt - now);
      else res.end(body);
    });
  });
  return { ...target, requests: () => requests };
}

/** A raw TCP listener whose connection handler the test controls (resets, half-answers). */
export async function startTcpTarget(onConnection: (socket: Socket) => void): Promise<RunningTarget & { server: TcpServer }> {
  const server = createTcpServer(onConnection);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound then released). */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
