import { createModelDriver } from './model.ts';
import type { OpenLoopOptions } from './open-loop.ts';
import type { Driver } from './types.ts';

/** Raised when a run cannot start (an unknown or unavailable target): exit code 3. */
export class RunStartError extends Error {
  override readonly name = 'RunStartError';
}

export interface DriverOptions {
  /** Real targets: run the schedule on this many worker threads, each a disjoint slice. */
  workers?: number | undefined;
  /** Set inside a worker: send only requests with seq ≡ index (mod count). */
  slice?: { index: number; count: number } | undefined;
  /** Set inside a worker: called once connected; resolves to the run's shared start (performance.timeOrigin + performance.now(), ms). */
  awaitStart?: OpenLoopOptions['awaitStart'];
  /** Set inside a worker: where the generator's raw figures go at the end. */
  exportHealth?: OpenLoopOptions['exportHealth'];
  /** Poll the target's stats endpoint (http.statsPath); in a multi-worker run only worker 0 does. */
  pollTargetStats?: boolean | undefined;
}

/** The driver for a target: "model", http://host:port or memcached://host:port[,host:port…]. */
export function createDriver(target: string, options: DriverOptions = {}): Driver {
  const workers = options.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new RunStartError(`--workers ${workers}: expected a whole number ≥ 1`);
  if (target === 'model') {
    if (workers > 1) throw new RunStartError('--workers applies to real targets; the model runs in virtual time on one thread');
    return createModelDriver();
  }
  const scheme = /^([a-z]+):\/\//.exec(target)?.[1];
  if (scheme === 'http') {
    try {
      new URL(target);
    } catch {
      throw new RunStartError(`target ${target}: not a valid URL`);
    }
    if (workers > 1) return workerDriver(target, workers);
    return lazyDriver(target, async () => (await import('./http/driver.ts')).createHttpDriver(target, options));
  }
  if (scheme === 'memcached') {
    const servers = parseMemcachedServers(target);
    if (workers > 1) return workerDriver(target, workers);
    return lazyDriver(target, async () => (await import('./memcached/driver.ts')).createMemcachedDriver(target, servers, options));
  }
  throw new RunStartError(`target ${target}: expected "model", http://host:port or memcached://host:port[,host:port…]`);
}

function workerDriver(target: string, workers: number): Driver {
  return lazyDriver(target, async () => (await import('../generator/workers.ts')).createWorkerDriver(target, workers));
}

/** The real drivers load on first use, so a model run's start-up (tsx compiles every module it imports) stays as it was. */
function lazyDriver(target: string, load: () => Promise<Driver>): Driver {
  return { target, run: async (context) => (await load()).run(context) };
}

export interface ServerAddress {
  host: string;
  port: number;
}

/** memcached://h1:p1,h2:p2 → one address per shard, in the order given (the shard order). */
export function parseMemcachedServers(target: string): ServerAddress[] {
  const list = target.slice('memcached://'.length).replace(/\/$/, '');
  const servers = list.split(',').map((part) => {
    const match = /^([^:\s]+|\[[^\]]+\]):(\d{1,5})$/.exec(part.trim());
    if (!match) throw new RunStartError(`target ${target}: expected memcached://host:port[,host:port…], got "${part}"`);
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
  });
  if (servers.length === 0) throw new RunStartError(`target ${target}: no servers`);
  return servers;
}
