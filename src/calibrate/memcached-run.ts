import { MEMCACHED } from '../profile/protocols/memcached/spec.ts';
import { parseTarget, protocolOf } from '../profile/protocols/registry.ts';
import { isRunFolder, readRunFolder } from '../run-folder/index.ts';
import { CalibrationInputError } from './errors.ts';
import type { MemcachedGetFigures } from './types.ts';

const HINT = 'give a folder of `stampede run` against memcached:// at a low rate (e.g. profiles/user-cache-memcached.yaml --set phases[0].rate=200)';

/**
 * The round trip of a low-rate run against real memcached (from each operation's write to its
 * reply): the model cache's per-get time. Not the latency from the intended time, which also
 * holds the generator's timer slack (up to a millisecond at a low rate) that the service's own
 * memcached client never waits for. @throws CalibrationInputError
 */
export function readMemcachedRun(dir: string): MemcachedGetFigures {
  if (!isRunFolder(dir)) throw new CalibrationInputError(`no result.json in ${dir}`, HINT);
  const { result } = readRunFolder(dir);
  // The model cache's get time is memcached's own: the calibration names the protocol it was made for.
  if (protocolOf(parseTarget(result.target)) !== MEMCACHED) throw new CalibrationInputError(`${dir} ran against ${result.target}, not memcached`, HINT);
  const roundTrips = result.serviceTimeUs;
  if (roundTrips.count === 0) throw new CalibrationInputError(`${dir} measured no request`, HINT);
  return { dir, p50Us: roundTrips.p50, p99Us: roundTrips.p99 };
}
