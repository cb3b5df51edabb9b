import { parseTarget, type TargetSpec } from '../profile/target.ts';
import { RunStartError } from './errors.ts';
import { createModelDriver } from './model.ts';
import type { Profile } from '../profile/types.ts';
import { untilEpoch } from './start-at.ts';
import type { Driver, DriverOptions, RunContext } from './types.ts';

// RunStartError lives in its own small module so the CLI can map it to an exit code without loading the drivers.
export { RunStartError } from './errors.ts';
export type { ServerAddress } from '../profile/target.ts';
export type { DriverOptions } from './types.ts';

/**
 * The driver for a target: a parsed TargetSpec, or a target string ("model", http://host:port,
 * memcached://host:port[,host:port…]) parsed by the one target parser.
 * @throws TargetError for a string that names no target; RunStartError for options the target cannot take.
 */
export function createDriver(target: TargetSpec | string, options: DriverOptions = {}): Driver {
  const spec = typeof target === 'string' ? parseTarget(target) : target;
  const workers = options.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new RunStartError(`--workers ${workers}: expected a whole number ≥ 1`);
  switch (spec.kind) {
    case 'model':
      if (workers > 1) throw new RunStartError('--workers applies to real targets; the model runs in virtual time on one thread');
      return startingAt(createModelDriver(), options.startAtEpochMs);
    case 'http':
      // TLS files are read on the main thread first: a missing one is bad input (exit 2), not a failed worker.
      if (workers > 1) return workerDriver(spec.text, workers, options.startAtEpochMs, async (profile) => (await import('./http/tls.ts')).loadTlsMaterial(spec, profile));
      return lazyDriver(spec.text, async (context) => (await import('./http/driver.ts')).createHttpDriver(spec, withSharedStart(options, context.signal)));
    case 'memcached':
      if (workers > 1) return workerDriver(spec.text, workers, options.startAtEpochMs);
      return lazyDriver(spec.text, async (context) => (await import('./memcached/driver.ts')).createMemcachedDriver(spec, withSharedStart(options, context.signal)));
  }
}

function workerDriver(target: string, workers: number, startAtEpochMs: number | undefined, check?: (profile: Profile) => Promise<unknown>): Driver {
  return lazyDriver(target, async (context) => {
    await check?.(context.profile);
    return (await import('./workers.ts')).createWorkerDriver(target, workers, startAtEpochMs);
  });
}

/** A shared start (--start-at) for a real driver: it connects first, then waits for it (the pacer's awaitStart); Ctrl-C ends the wait. */
function withSharedStart(options: DriverOptions, signal: AbortSignal): DriverOptions {
  const startAt = options.startAtEpochMs;
  if (startAt === undefined || options.awaitStart !== undefined) return options;
  return { ...options, awaitStart: () => untilEpoch(startAt, signal) };
}

/** The model runs in virtual time; a shared start only makes it begin when the other segments do. */
function startingAt(driver: Driver, startAtEpochMs: number | undefined): Driver {
  if (startAtEpochMs === undefined) return driver;
  return {
    target: driver.target,
    run: async (context) => {
      await untilEpoch(startAtEpochMs, context.signal);
      return driver.run(context);
    },
  };
}

/**
 * The real drivers load on first use, so a model run does not load socket code it never uses. A run
 * that could not start names its target.
 */
function lazyDriver(target: string, load: (context: RunContext) => Promise<Driver>): Driver {
  return {
    target,
    run: async (context) => {
      try {
        return await (await load(context)).run(context);
      } catch (error) {
        if (error instanceof RunStartError && !error.message.includes(target)) throw new RunStartError(`${target}: ${error.message}`);
        throw error;
      }
    },
  };
}
