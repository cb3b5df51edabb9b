/**
 * The schedule stage: a pure, seeded stream of requests, each aimed at an absolute offset from the
 * run start. Nothing here waits on a response; drivers pull the next request and send it at its
 * intended time (or, for the model, schedule it in virtual time).
 */

/**
 * One scheduled request. Drivers pass the same slot to `next()` over and over, so reading a request
 * allocates nothing; `keys` is a view into the schedule's buffer and is only valid until the next call.
 */
export interface ScheduledRequest {
  /** Position in the merged schedule, 0-based. */
  seq: number;
  /** Intended send time, µs from run start (warm-up included). Latency is measured from here. */
  intendedAtUs: number;
  /** Index into `Plan.clients`. */
  client: number;
  /** Index into `Plan.kinds`. */
  kind: number;
  /** Number of keys carried (1 for a plain get). Equals `keys.length`. */
  batchSize: number;
  /** Value bytes (for writes; drivers may ignore it for reads). */
  valueSize: number;
  /** Time to live a write sets, µs; 0 when its kind sets none (never expires). */
  ttlUs: number;
  /** Key ids: 0..keyCount-1 follow the popularity law, keyCount+j is hot key j. */
  keys: Uint32Array;
}

export function emptyRequest(): ScheduledRequest {
  return { seq: -1, intendedAtUs: 0, client: 0, kind: 0, batchSize: 0, valueSize: 0, ttlUs: 0, keys: new Uint32Array(0) };
}

/** A linear piece of a rate curve: rate goes from `fromRps` at `startUs` to `toRps` at `endUs`. */
export interface RateSegment {
  startUs: number;
  endUs: number;
  fromRps: number;
  toRps: number;
}

export interface PlannedClient {
  name: string;
  instances: number;
  /** The client's asked-rate curve over the whole run (warm-up included, multipliers applied). */
  segments: RateSegment[];
  /** Integral of the asked rate over the run: the expected number of requests. */
  expectedRequests: number;
}

export interface PlannedPhase {
  label: string;
  startUs: number;
  endUs: number;
}

/** What the schedule will do, resolved from the profile; printed by `stampede validate`. */
export interface Plan {
  seed: number;
  warmupUs: number;
  /** Measured duration, after the warm-up. */
  durationUs: number;
  /** warmupUs + durationUs: the last intended send time is below this. */
  totalUs: number;
  /** How requests arrive: by the profile's law, or at a trace's own times (a replay). */
  arrivals: 'constant' | 'poisson' | 'trace';
  phases: PlannedPhase[];
  clients: PlannedClient[];
  /** Every request kind any client can send; `ScheduledRequest.kind` indexes this. */
  kinds: string[];
  /** Expected share of each kind, same order as `kinds`. */
  kindShares: number[];
  expectedRequests: number;
  keyspace: Keyspace;
}

export interface Keyspace {
  /** Keys that follow the popularity law: ids 0..count-1. */
  count: number;
  /** Named hot keys: id count+j is hotKeys[j]. */
  hotKeys: string[];
  /** keys.oneHitWonders: ids count+hotKeys.length+j (j below this) are one-hit wonders; absent without. */
  onceKeys?: number;
  /** The key's wire name; cheap, but callers on a hot path should cache it. */
  keyName(id: number): string;
}

export interface Schedule {
  readonly plan: Plan;
  /** Set when this is one segment of the schedule (`--segment i/N`): only its requests come out of `next`. */
  readonly segment?: { index: number; count: number };
  /** Fills `into` with the next request in intended-time order; false when the schedule is exhausted. */
  next(into: ScheduledRequest): boolean;
}
