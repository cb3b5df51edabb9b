import { createModelDriver } from './model.ts';
import type { Driver } from './types.ts';

/** Raised when a run cannot start (an unknown or unavailable target): exit code 3. */
export class RunStartError extends Error {
  override readonly name = 'RunStartError';
}

/** The driver for a target: "model", or a URL once the real drivers exist. */
export function createDriver(target: string): Driver {
  if (target === 'model') return createModelDriver();
  const scheme = /^([a-z]+):\/\//.exec(target)?.[1];
  if (scheme === 'http' || scheme === 'memcached') throw new RunStartError(`target ${target}: the ${scheme} driver is not available in this version; use --target model`);
  throw new RunStartError(`target ${target}: expected "model", http://host:port or memcached://host:port[,host:port…]`);
}
