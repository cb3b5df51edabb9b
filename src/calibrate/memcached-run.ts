import { isRunFolder, readRunFolder } from '../run-folder/index.ts';
import { CalibrationInputError } from './errors.ts';
import type { MemcachedGetFigures } from './types.ts';

const HINT = 'give a folder of `stampede run` against memcached:// at a low rate (e.g. profiles/user-cache-memcached.yaml --set phases[0].rate=200)';

/** The get latency of a low-rate run against real memcached: the model cache's per-get time. @throws CalibrationInputError */
export function readMemcachedRun(dir: string): MemcachedGetFigures {
  if (!isRunFolder(dir)) throw new CalibrationInputError(`no result.json in ${dir}`, HINT);
  const { result } = readRunFolder(dir);
  if (!result.target.startsWith('memcached://')) throw new CalibrationInputError(`${dir} ran against ${result.target}, not memcached`, HINT);
  const gets = result.byKind.get?.latencyUs ?? result.latencyUs;
  if (gets.count === 0) throw new CalibrationInputError(`${dir} measured no request`, HINT);
  return { dir, p50Us: gets.p50, p99Us: gets.p99 };
}
