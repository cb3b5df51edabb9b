/**
 * The recorder stage's input side: what a driver reports while it runs. Every call is on the hot
 * path (once per request) and must not allocate. Times are integer µs from the run start — wall
 * time for real drivers, virtual time for the model.
 */
export interface Recorder {
  /** Registers an error reason ("timeout", "dial_error", …) once at setup; returns its code (> 0). */
  reason(name: string): number;
  /**
   * The request left the generator (for the model: reached the system) at `sentAtUs`; it was due at
   * `intendedAtUs`, which decides whether it is a warm-up or a measured request.
   */
  sent(intendedAtUs: number, sentAtUs: number, client: number): void;
  /**
   * The request finished. `reason` is 0 for success, else a code from `reason()`. Latency is
   * completedAt − intendedAt (open loop: a stalled target cannot hide its stall); service time is
   * completedAt − sentAt. `sentAtUs` is −1 for a request that failed before reaching the wire: it
   * counts as failed, not as sent.
   */
  complete(intendedAtUs: number, sentAtUs: number, completedAtUs: number, client: number, kind: number, reason: number): void;
  /** The generator could not send the request at all (its in-flight cap was reached). */
  dropped(intendedAtUs: number, client: number, kind: number): void;
  /** Closes every interval that ends at or before `nowUs`, sampling the gauge source for each. */
  advanceTo(nowUs: number): void;
  /** Where interval gauges come from (in-flight, connections, queue depths, hit ratio, …). */
  setGaugeSource(source: GaugeSource): void;
}

/** Returns the current value of every gauge; called once per interval, so it may allocate. */
export type GaugeSource = () => Readonly<Record<string, number>>;
