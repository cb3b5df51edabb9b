import { parseTarget, type TargetSpec } from '../profile/target.ts';
import { RunStartError } from './errors.ts';
import { createModelDriver } from './model.ts';
import type { Profile } from '../profile/types.ts';
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
      return createModelDriver();
    case 'http':
      // TLS files are read on the main thread first: a missing one is bad input (exit 2), not a failed worker.
      if (workers > 1) return workerDriver(spec.text, workers, async (profile) => (await import('./http/tls.ts')).loadTlsMaterial(spec, profile));
      return lazyDriver(spec.text, async () => (await import('./http/driver.ts')).createHttpDriver(spec, options));
    case 'memcached':
      if (workers > 1) return workerDriver(spec.text, workers);
      return lazyDriver(spec.text, async () => (await import('./memcached/driver.ts')).createMemcachedDriver(spec, options));
  }
}

function workerDriver(target: string, workers: number, check?: (profile: Profile) => Promise<unknown>): Driver {
  return lazyDriver(target, async (context) => {
    await check?.(context.profile);
    return (await import('./workers.ts')).createWorkerDriver(target, workers);
  });
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
