import type { Profile } from '../profile/types.ts';
import type { GaugeSpec } from '../recorder/gauges.ts';
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

export interface DriverReport {
  /** Virtual or wall µs from run start to the last completion. */
  elapsedUs: number;
  /** True when the run was cut short by the signal. */
  interrupted: boolean;
  /** Driver-specific figures for result.json (model: events processed, final gauges). */
  details: Record<string, unknown>;
  /** The gauges the run's intervals carry, declared once each (unit, family). */
  gauges?: readonly GaugeSpec[];
  /** Real drivers only: how healthy the load generator itself was (the model has no generator to saturate). */
  generator?: GeneratorHealth;
}

/** The generator's own health, so a report can say when the generator, not the target, was the limit. */
export interface GeneratorHealth {
  /** Event-loop lag of the sending process(es), sampled through the run, ms. */
  eventLoopLagMs: { mean: number; p99: number; max: number };
  /** CPU used by the generator, as a fraction of one core, averaged over the run (max over workers). */
  cpu: number;
  /** How late requests left compared with their intended send time, µs. */
  sendLatenessUs: { mean?: number; p50: number; p99: number; max: number };
  /**
   * The pacer's own part of it: how late requests were handed to the transport (timer granularity,
   * a busy or starved loop), µs. sendLatenessUs minus this is time spent waiting for a free
   * connection, i.e. the target's backpressure on the generator's pool.
   */
  dispatchLatenessUs?: { p50: number; p99: number; max: number };
  /** True when lag, CPU, lateness or drops say the generator limited the run. */
  saturated: boolean;
  /** Why `saturated` is true, each with its figure, e.g. "event-loop lag p99 48ms > 20ms". */
  reasons: string[];
}
