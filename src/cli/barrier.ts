import type { BarrierSpec } from '../barrier/barrier.ts';

/**
 * The run's start as the barrier decides it, with a line on stderr when the segment starts waiting
 * and one when the start is known (a pod's log then shows where it waited and for what).
 */
export function barrierStart(spec: Omit<BarrierSpec, 'toleranceMs'>, toleranceMs: number): (signal: AbortSignal) => Promise<number> {
  return async (signal) => {
    const { awaitBarrier } = await import('../barrier/barrier.ts');
    const { index, count } = spec.segment;
    process.stderr.write(
      `stampede: segment ${index} of ${count} at the barrier in ${spec.dir}: the run starts when all ${count} have arrived (waiting up to ${spec.timeoutMs / 1000} s)\n`,
    );
    const startMs = await awaitBarrier({ ...spec, toleranceMs }, signal);
    process.stderr.write(`stampede: all ${count} segments arrived: the run starts at ${new Date(startMs).toISOString()}\n`);
    return startMs;
  };
}
