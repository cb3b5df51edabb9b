import { TargetError } from '../target.ts';
import { HTTP } from './http/spec.ts';
import { MEMCACHED } from './memcached/spec.ts';
import { MODEL } from './model/spec.ts';
import { REDIS } from './redis/spec.ts';
import type { ProtocolSpec, ReportBase, ReportSpec, TargetBase } from './spec.ts';

/**
 * Every protocol stampede speaks, the model first (the default target). Adding one is a folder
 * beside these, a line here and its transport's line in src/driver/index.ts (TRANSPORTS).
 */
export const PROTOCOLS = [MODEL, HTTP, MEMCACHED, REDIS] as const;

type Listed = (typeof PROTOCOLS)[number];
type TargetOf<P> = P extends ProtocolSpec<infer T, ReportBase, never> ? T : never;
type ReportOf<P> = P extends ProtocolSpec<TargetBase, infer R, never> ? R : never;
type ViewOf<P> = P extends ProtocolSpec<TargetBase, ReportBase, infer V> ? V : never;
type SectionsOf<P> = P extends ProtocolSpec<TargetBase, ReportBase, never, infer S> ? S : never;
/** A union's members as one type that is all of them. */
type AllOf<U> = (U extends unknown ? (all: U) => void : never) extends (all: infer I) => void ? I : never;

/** A parsed target: which protocol, its text as written (what result.json and the reports show) and its own fields. */
export type TargetSpec = TargetOf<Listed>;
export type ProtocolName = TargetSpec['kind'];
/** A transport report of any protocol that has one. */
export type ProtocolReport = ReportOf<Listed>;
/** What the protocols read of the loaded profile, together: a Profile is one. */
export type ProtocolView = AllOf<ViewOf<Listed>>;
/** A protocol as the stages see it: any of them, asked through its target. */
export type Protocol = ProtocolSpec<TargetSpec, ProtocolReport, ProtocolView>;

/** Every protocol's profile sections (`http:`, `memcached:`), for ProfileSchema, in the protocols' order. */
export const PROTOCOL_SECTIONS = Object.assign({}, ...PROTOCOLS.map((p) => p.sections)) as AllOf<SectionsOf<Listed>>;

// A spec is only ever handed targets and reports of its own name (looked up by it), so each is one of these.
const BY_NAME = new Map<string, Protocol>(PROTOCOLS.map((p) => [p.name, p as unknown as Protocol]));
const BY_SCHEME = new Map<string, Protocol>(PROTOCOLS.flatMap((p) => p.schemes.map((s): [string, Protocol] => [s, p as unknown as Protocol])));

export const TARGET_FORMS = formsOf(PROTOCOLS.flatMap((p) => p.forms.split(', ')));

function formsOf(forms: string[]): string {
  return `${forms.slice(0, -1).join(', ')} or ${forms.at(-1)}`;
}

/** The protocol a parsed target belongs to. */
export function protocolOf(target: TargetSpec): Protocol {
  return BY_NAME.get(target.kind)!;
}

/** Parses a target as written: a protocol's bare name ("model") or scheme://…. @throws TargetError */
export function parseTarget(text: string): TargetSpec {
  const bare = BY_NAME.get(text);
  if (bare !== undefined && bare.schemes.length === 0) return bare.parse(text, '', '');
  const match = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(text);
  if (!match) throw new TargetError(text, `expected ${TARGET_FORMS}`);
  const scheme = match[1]!.toLowerCase();
  const protocol = BY_SCHEME.get(scheme);
  if (!protocol) throw new TargetError(text, `unknown scheme "${match[1]}"; expected ${TARGET_FORMS}`);
  return protocol.parse(text, scheme, match[2]!.replace(/\/$/, ''));
}

/** A target given parsed or as written (a library caller's string), parsed once. @throws TargetError */
export function targetOf(given: TargetSpec | string): TargetSpec {
  return typeof given === 'string' ? parseTarget(given) : given;
}

/** Every host a target sends to: none for the model, the host of an http target, each memcached server. */
export function targetHosts(target: TargetSpec): string[] {
  return protocolOf(target).hosts(target);
}

/** The spec of a report's protocol. */
function reportSpecOf(report: ProtocolReport): ReportSpec<ProtocolReport> {
  return BY_NAME.get(report.protocol)!.report!;
}

/**
 * Several senders' transport reports as one — worker threads of one run and segments of a merged
 * run alike: each protocol merges its own figures; every sender's report is kept under perWorker
 * (a segment that ran worker threads contributes each of them).
 */
export function mergeTransportReports<R extends ProtocolReport>(reports: readonly (R & { perWorker?: R[] })[]): R & { perWorker: R[] } {
  const own = reports.flatMap(({ perWorker, ...report }) => perWorker ?? [report as unknown as R]);
  return { ...(reportSpecOf(own[0]!).merge(own) as R), perWorker: own };
}

/** A transport's connection pool summed over its worker threads (each has its own); undefined when its protocol has none to wait for. */
export function connectionPoolOf(report: ProtocolReport & { perWorker?: ProtocolReport[] }): { connections: number; slots: number } | undefined {
  const count = reportSpecOf(report).connectionPool;
  if (count === undefined) return undefined;
  const pool = { connections: 0, slots: 0 };
  for (const own of report.perWorker ?? [report]) {
    const held = count(own);
    if (held === undefined) return undefined;
    pool.connections += held.connections;
    pool.slots += held.slots;
  }
  return pool;
}

/** A transport report as report lines. */
export function describeTransport(report: ProtocolReport): string[] {
  return reportSpecOf(report).describe(report);
}
