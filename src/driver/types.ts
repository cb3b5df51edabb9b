import type { Profile } from '../profile/types.ts';
import type { DriverReport } from '../recorder/driver-report.ts';
import type { Recorder } from '../recorder/types.ts';
import type { Schedule } from '../schedule/types.ts';

export interface RunContext {
  profile: Profile;
  schedule: Schedule;
  recorder: Recorder;
  /** Aborted on Ctrl-C or a deadline: the driver stops sending and returns what it measured. */
  signal: AbortSignal;
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
