import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { constants as perfConstants, PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';
import { cpuUsage } from 'node:process';
import { MemcachedPool, type LookupResult, type PoolSettings } from './memcached-pool.ts';

export interface ReferenceSettings {
  /** 0 picks a free port. The service binds 127.0.0.1 only. */
  port: number;
  memcached: { host: string; port: number };
  /** Lookups of one request in flight at once (errgroup.SetLimit); Infinity = the Bluesky bug. */
  limit: number;
  pool: PoolSettings;
  /** The backing store's latency per missed URI, ms (ScyllaDB in the incident). */
  storeDelayMs: number;
  /** Requests over this many URIs are rejected with 413. */
  maxBatch: number;
}

export const DEFAULT_REFERENCE: ReferenceSettings = {
  port: 8080,
  memcached: { host: '127.0.0.1', port: 11211 },
  limit: Number.POSITIVE_INFINITY,
  pool: { maxOpen: 512, maxIdle: 100, checkoutTimeoutMs: 100, timeoutMs: 500 },
  storeDelayMs: 1,
  maxBatch: 50_000,
};

export interface ReferenceService {
  port: number;
  url: string;
  stats(): ReferenceStats;
  close(): Promise<void>;
}

export interface ReferenceStats {
  limit: number | 'inf';
  /** The settings a model of this service needs (`stampede calibrate` reads them), durations in µs. */
  settings: { storeDelayUs: number; poolMaxOpen: number; poolMaxIdle: number; checkoutTimeoutUs: number; operationTimeoutUs: number };
  /**
   * The one JavaScript thread all requests share: `activeUs` is the time it has spent busy since
   * the service started (performance.eventLoopUtilization), so busy time ÷ requests between two
   * polls is the service demand per request (the utilisation law) that `stampede calibrate` fits.
   */
  eventLoop: { threads: 1; activeUs: number };
  /**
   * CPU time of the whole service process since it started, µs (user + system, every thread:
   * JavaScript, the garbage collector's helpers, the kernel's socket work). On a core of its own
   * this ÷ requests is the demand that bounds its throughput; the event loop's busy time misses
   * the kernel's and the helper threads' share (about half of it on loopback).
   */
  cpu: { usedUs: number };
  /**
   * Garbage collections since the service started, each a pause of its one JavaScript thread:
   * minor (scavenges, frequent and short: their rate follows the allocation, so the request rate)
   * and major (mark-compact), count and total pause, µs. What `stampede calibrate` turns into the
   * rare long item that holds the model's core.
   */
  gc: { minorPauses: number; minorPauseUs: number; majorPauses: number; majorPauseUs: number };
  requests: { ok: number; failed: number; inFlight: number };
  lookups: { hits: number; misses: number; errors: number; checkoutTimeouts: number; inFlight: number; inFlightHighWater: number };
  connections: {
    clients: number;
    memcachedOpen: number;
    memcachedInUse: number;
    memcachedIdleCap: number;
    memcachedOpened: number;
    memcachedClosed: number;
    memcachedHighWater: number;
    checkoutWaiters: number;
  };
}

/**
 * A small real `getPostRecord` service, so every machine has a real target for the 20k-URI batch:
 * POST /xrpc/getPostRecord {"uris": [...]} looks every URI up in memcached through a bounded pool,
 * on a miss reads a slower in-process store and fills memcached. Per request at most `limit`
 * lookups are in flight; with no limit a 20,000-URI request takes every pool connection at once,
 * so its lookups and everyone else's wait for a connection and fail with checkout_timeout, and
 * connections beyond the idle cap are closed after every use (the TIME_WAIT churn of the incident).
 * GET /stats reports the connection counts; a request with any failed lookup answers 503.
 */
export async function startReferenceService(settings: ReferenceSettings): Promise<ReferenceService> {
  const pool = new MemcachedPool(settings.memcached.host, settings.memcached.port, settings.pool);
  const counters = { ok: 0, failed: 0, inFlight: 0, hits: 0, misses: 0, errors: 0, lookupsInFlight: 0, lookupsHighWater: 0 };
  const clients = new Set<Socket>();

  const gc = watchGc();
  const stats = (): ReferenceStats => ({
    limit: Number.isFinite(settings.limit) ? settings.limit : 'inf',
    settings: {
      storeDelayUs: Math.round(settings.storeDelayMs * 1000),
      poolMaxOpen: settings.pool.maxOpen,
      poolMaxIdle: settings.pool.maxIdle,
      checkoutTimeoutUs: Math.round(settings.pool.checkoutTimeoutMs * 1000),
      operationTimeoutUs: Math.round(settings.pool.timeoutMs * 1000),
    },
    eventLoop: { threads: 1, activeUs: Math.round(performance.eventLoopUtilization().active * 1000) },
    cpu: { usedUs: processCpuUs() },
    gc: { ...gc.counts },
    requests: { ok: counters.ok, failed: counters.failed, inFlight: counters.inFlight },
    lookups: {
      hits: counters.hits,
      misses: counters.misses,
      errors: counters.errors,
      checkoutTimeouts: pool.checkoutTimeouts,
      inFlight: counters.lookupsInFlight,
      inFlightHighWater: counters.lookupsHighWater,
    },
    connections: {
      clients: clients.size,
      memcachedOpen: pool.open,
      memcachedInUse: pool.inUse,
      memcachedIdleCap: settings.pool.maxIdle,
      memcachedOpened: pool.opened,
      memcachedClosed: pool.closed,
      memcachedHighWater: pool.highWater,
      checkoutWaiters: pool.waiting,
    },
  });

  /** One URI: memcached, then the store on a miss (and fill). Calls back true when it has a record. */
  const lookup = (uri: string, done: (ok: boolean) => void): void => {
    counters.lookupsInFlight++;
    if (counters.lookupsInFlight > counters.lookupsHighWater) counters.lookupsHighWater = counters.lookupsInFlight;
    const finish = (ok: boolean) => {
      counters.lookupsInFlight--;
      done(ok);
    };
    pool.get(uri, (result: LookupResult) => {
      if (result === 'hit') {
        counters.hits++;
        return finish(true);
      }
      if (result !== 'miss') {
        counters.errors++;
        return finish(false);
      }
      counters.misses++;
      setTimeout(() => {
        // The store always has the post; filling the cache is best effort, as in the incident.
        pool.set(uri, Buffer.from(`{"uri":${JSON.stringify(uri)}}`), () => finish(true));
      }, settings.storeDelayMs);
    });
  };

  /** Runs every lookup with at most `limit` in flight; calls back with the number that failed. */
  const lookupAll = (uris: string[], done: (failed: number) => void): void => {
    let next = 0;
    let finished = 0;
    let failed = 0;
    if (uris.length === 0) return done(0);
    const launch = (): void => {
      const uri = uris[next++]!;
      lookup(uri, (ok) => {
        if (!ok) failed++;
        finished++;
        if (finished === uris.length) done(failed);
        else if (next < uris.length) launch();
      });
    };
    const first = Math.min(uris.length, settings.limit);
    for (let i = 0; i < first; i++) launch();
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method === 'GET' && req.url === '/stats') {
      req.resume();
      return send(res, 200, JSON.stringify(stats()));
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/xrpc/getPostRecord')) {
      req.resume();
      return send(res, 404, '{"error":"not found"}');
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let uris: unknown;
      try {
        uris = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { uris?: unknown }).uris;
      } catch {
        return send(res, 400, '{"error":"expected JSON {\\"uris\\": [...]}"}');
      }
      if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string')) return send(res, 400, '{"error":"expected uris: string[]"}');
      if (uris.length > settings.maxBatch) return send(res, 413, `{"error":"over ${settings.maxBatch} uris"}`);
      counters.inFlight++;
      lookupAll(uris as string[], (failed) => {
        counters.inFlight--;
        if (failed > 0) {
          counters.failed++;
          return send(res, 503, `{"error":"${failed} of ${uris.length} lookups failed"}`);
        }
        counters.ok++;
        send(res, 200, `{"records":${uris.length}}`);
      });
    });
  };

  const server: Server = createServer({ keepAliveTimeout: 60_000 }, handle);
  server.on('connection', (s) => {
    clients.add(s);
    s.on('close', () => clients.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      gc.stop();
      reject(error);
    });
    server.listen(settings.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of clients) s.destroy();
        gc.stop();
        pool.close();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function processCpuUs(): number {
  const used = cpuUsage();
  return used.user + used.system;
}

/** Counts this thread's GC pauses from the moment it is called (the service's own, by kind). */
function watchGc(): { counts: ReferenceStats['gc']; stop(): void } {
  const counts = { minorPauses: 0, minorPauseUs: 0, majorPauses: 0, majorPauseUs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) countGc(counts, entry);
  });
  observer.observe({ entryTypes: ['gc'] });
  return { counts, stop: () => observer.disconnect() };
}

function countGc(counts: ReferenceStats['gc'], entry: PerformanceEntry): void {
  const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  const pauseUs = Math.round(entry.duration * 1000);
  if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) {
    counts.majorPauses++;
    counts.majorPauseUs += pauseUs;
  } else if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) {
    counts.minorPauses++;
    counts.minorPauseUs += pauseUs;
  }
}
