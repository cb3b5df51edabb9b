import type { ProtocolName, TargetSpec } from '../profile/protocols/registry.ts';
import { RunStartError } from './errors.ts';
import { createModelDriver } from './model.ts';
import type { Profile } from '../profile/types.ts';
import { untilEpoch } from './start-at.ts';
import type { Driver, DriverOptions, RunContext } from './types.ts';

// RunStartError lives in its own small module so the CLI can map it to an exit code without loading the drivers.
export { RunStartError } from './errors.ts';
export type { ServerAddress } from '../profile/protocols/address.ts';
export type { DriverOptions } from './types.ts';

/**
 * The driver for a parsed target.
 * @throws RunStartError for options the target cannot take.
 */
export function createDriver(target: TargetSpec, options: DriverOptions = {}): Driver {
  const workers = options.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new RunStartError(`--workers ${workers}: expected a whole number ≥ 1`);
  return transportOf(target).driver(target, workers, options);
}

/**
 * Reads now what the target's driver will need of the profile (an https:// target's TLS files),
 * so that bad input fails before any folder or traffic. @throws ProfileError
 */
export async function checkDriverInput(target: TargetSpec, profile: Profile): Promise<void> {
  await transportOf(target).checkInput?.(target, profile);
}

/** A protocol's transport. */
interface Transport<T extends TargetSpec> {
  /** The driver for one of its targets, on `workers` threads. */
  driver(target: T, workers: number, options: DriverOptions): Driver;
  /** What the driver will read of the profile, read now. @throws ProfileError */
  checkInput?(target: T, profile: Profile): Promise<void>;
}

function transportOf(target: TargetSpec): Transport<TargetSpec> {
  // Each entry takes the targets of its own name.
  return TRANSPORTS[target.kind] as Transport<TargetSpec>;
}

/**
 * Each protocol's transport, by the protocol's name (its spec, profile/protocols/, says the rest).
 * The real ones load on first use, so a model run does not load socket code it never uses.
 */
const TRANSPORTS: { [Name in ProtocolName]: Transport<Extract<TargetSpec, { kind: Name }>> } = {
  model: {
    driver: (_target, workers, options) => {
      if (workers > 1) throw new RunStartError('--workers applies to real targets; the model runs in virtual time on one thread');
      return startingAt(createModelDriver(), options.startAtEpochMs);
    },
  },
  http: {
    driver: (target, workers, options) =>
      // TLS files are read on the main thread first: a missing one is bad input (exit 2), not a failed worker.
      workers > 1
        ? workerDriver(target.text, workers, options.startAtEpochMs, (profile) => TRANSPORTS.http.checkInput!(target, profile))
        : lazyDriver(target.text, async (context) => (await import('./http/driver.ts')).createHttpDriver(target, withSharedStart(options, context.signal))),
    checkInput: async (target, profile) => {
      if (target.tls) (await import('./http/tls.ts')).loadTlsMaterial(target, profile);
    },
  },
  memcached: {
    driver: (target, workers, options) =>
      workers > 1
        ? workerDriver(target.text, workers, options.startAtEpochMs)
        : lazyDriver(target.text, async (context) => (await import('./memcached/driver.ts')).createMemcachedDriver(target, withSharedStart(options, context.signal))),
  },
  redis: {
    driver: (target, workers, options) =>
      workers > 1
        ? workerDriver(target.text, workers, options.startAtEpochMs)
        : lazyDriver(target.text, async (context) => (await import('./redis/driver.ts')).createRedisDriver(target, withSharedStart(options, context.signal))),
  },
};

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

/** A driver loaded on first use; a run that could not start names its target. */
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
