import type { z } from 'zod';
import type { TimelineEvent } from '../topology/timeline.ts';

/*
 * What every stage may ask of a protocol, so that no stage outside a protocol's folder tells the
 * protocols apart. A protocol is a folder here (its target form, profile section, report and what
 * the plan check, the realism flags and the timeline need of it) plus its transport in
 * src/driver/<protocol>/; the registry (registry.ts) lists the folders, and driver/transports.ts
 * their transports — the stages allow no single place for both (profile comes before driver).
 */

/** Every target carries the protocol that parsed it (`kind`) and its text as written: what result.json and the reports show. */
export interface TargetBase {
  kind: string;
  text: string;
}

/** The figures every transport report carries, whatever the protocol. */
export interface ReportBase {
  protocol: string;
  connects: number;
  /** Connections closed because the server broke the protocol. */
  protocolErrors: number;
}

/** A protocol's sections of the profile (`http:`), keyed as written, each schema with its defaults. */
export type Sections = Record<string, z.ZodType>;

/** The settings a protocol's sections give once parsed: what it reads of the loaded profile. */
export type SettingsOf<S extends Sections> = { [K in keyof S]: z.output<S[K]> };

/** The plan's load, for the protocols whose in-flight bound follows from it (the model's). */
export interface PlannedLoad {
  expectedRequests: number;
  /** Sum over clients of each one's highest planned rate, requests/s. */
  peakRps: number;
}

/**
 * T: its target; R: its transport report; V: what it reads of the loaded profile (its sections'
 * settings, or the model's topology); S: its profile sections (none for the model).
 */
export interface ProtocolSpec<T extends TargetBase = TargetBase, R extends ReportBase = ReportBase, V = unknown, S extends Sections = Sections> {
  /** The protocol's name: the `kind` of its targets and the `protocol` of its reports. */
  readonly name: T['kind'];
  /** The target as a user writes it, for messages, e.g. memcached://host:port[,host:port…]. */
  readonly forms: string;
  /** The URL schemes it parses (none: the target is its name alone, as the model's). */
  readonly schemes: readonly string[];
  /** `rest` is the text after `scheme://`, without a trailing slash. @throws TargetError */
  parse(text: string, scheme: string, rest: string): T;
  /** Its sections of the profile schema (the registry puts every protocol's into ProfileSchema). */
  readonly sections?: S;
  /** In-process on virtual time (the model): no generator, no wall clock, no hosts; the topology is its profile section. */
  readonly simulated: boolean;
  /** Every host the target sends to, as written (none for the model). */
  hosts(target: T): string[];
  /** Most requests in flight at once: what the plan check sizes memory by. */
  inFlightBound(profile: V, load: PlannedLoad): number;
  /** Its request templates carry `${NAME}` references, read from the environment for the driver only. */
  readonly resolvesSecrets: boolean;
  /** Fields of its sections keyed by the mix's request kinds, as [section, field] (memcached's operations): a key that is no kind of any mix is a typo the profile check refuses. */
  readonly kindKeyed?: readonly (readonly [section: string, field: string])[];
  /** It refuses keys a memcached server would (profile/memcached-keys.ts): the profile's unfit keys stop the run. */
  readonly refusesUnfitKeys: boolean;
  readonly realism: RealismNeeds<T, V>;
  readonly timeline: TimelineSupport<T>;
  /** Its transport report, absent for a protocol whose driver reports none (the model). */
  readonly report?: ReportSpec<R>;
}

/** What the realism flags need of a protocol. */
export interface RealismNeeds<T, V> {
  /** Connections one client instance keeps to each server. */
  connectionsPerClient(profile: V): number | undefined;
  /** Client instances beyond the profile's `clients` (the model's caller groups). */
  clientInstances?(profile: V): number;
  /** Shards the test spreads keys over. */
  shards(target: T, profile: V): number | undefined;
  /** Whether a kind of the mix writes to the cache (the reads-only, one-hit-wonders and no-ttl flags), for a cache protocol that maps kinds to operations. */
  writes?(profile: V, kind: string): boolean;
  /** Whether the target is encrypted, for a protocol that may be (http: https://); absent for one that never is. */
  encrypted?(target: T): boolean;
}

/** What a protocol's target does with the profile's timeline. */
export interface TimelineSupport<T> {
  /** The event types it applies; the rest are refused before the run. */
  readonly events: ReadonlySet<TimelineEvent['type']>;
  /** The servers a client ring is made of, in ring order: membership events move them in and out of it (memcached). */
  ring?(target: T): string[];
}

/** A transport report: one merge for worker threads and a run's segments alike, and its lines in a report. */
export interface ReportSpec<R extends ReportBase> {
  /**
   * Several senders' reports (worker threads, segments; each without perWorker) as one: counts
   * summed, ratios taken again from the sums, the first's settings kept.
   */
  merge(reports: readonly R[]): R;
  /** Its figures as report lines, plain text (terminal and markdown alike). */
  describe(report: R): string[];
  /** Connections held and requests they can carry at once (connections × pipelining), for a protocol whose sender may wait for a free one; undefined when this run's connections had no depth. */
  connectionPool?(report: R): { connections: number; slots: number } | undefined;
}
