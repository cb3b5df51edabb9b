import type { Profile } from '../profile/types.ts';
import type { OpenLoopOptions } from './open-loop.ts';
import type { DriverReport } from '../recorder/driver-report.ts';
import type { GaugeSpec } from '../recorder/gauges.ts';
import type { Recorder } from '../recorder/types.ts';
import type { Schedule } from '../schedule/types.ts';

export interface RunContext {
  profile: Profile;
  schedule: Schedule;
  recorder: Recorder;
  /** Aborted on Ctrl-C or a deadline: the driver stops sending and returns what it measured. */
  signal: AbortSignal;
  /**
   * Told the gauges the driver will sample, before the first interval closes, so a live reader
   * (metrics) can describe them while the run lasts; the report lists them again at the end.
   */
  declareGauges?: (specs: readonly GaugeSpec[]) => void;
}

/**
 * Sends a schedule to a target. The three drivers (model, http, memcached) are interchangeable
 * behind this: the schedule never knows which one it feeds. A failing target is a result to record
 * (error reasons), never a rejected promise; `run` rejects only when it could not start at all.
 */
export interface Driver {
  /** "model", or the target URL. */
  readonly target: string;
  run(context: RunContext): Promise<DriverReport>;
}

export interface DriverOptions {
  /** Real targets: run the schedule on this many worker threads, each a disjoint slice. */
  workers?: number | undefined;
  /** Wall-clock start shared with other segments (`--start-at`, epoch ms): the driver connects, then waits for it. */
  startAtEpochMs?: number | undefined;
  /** Set inside a worker: called once connected; resolves to the run's shared start (performance.timeOrigin + performance.now(), ms). */
  awaitStart?: OpenLoopOptions['awaitStart'];
  /** Set inside a worker: where the generator's raw figures go at the end. */
  exportHealth?: OpenLoopOptions['exportHealth'];
  /** Poll the target's stats endpoint (http.statsPath); in a multi-worker run only worker 0 does. */
  pollTargetStats?: boolean | undefined;
}
