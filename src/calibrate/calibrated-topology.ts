import { stringify } from 'yaml';
import { type Topology, TopologySchema } from '../profile/topology/index.ts';
import { CalibrationInputError } from './errors.ts';
import type { Template } from './template.ts';
import type { ServiceFit } from './fit.ts';

/** The delay hop's name: the network and what else the model does not see, in front of the service. */
export const NETWORK = 'calibrated-network';

/** The fit, with the residual delay once it is known. */
type Fit = ServiceFit & { networkUs?: number; networkDelayUs?: number[] };

/**
 * The template with the fitted figures written in, as a topology document (input form: durations
 * as "12us", unbounded as "inf"), and validated. The service runs its CPU on one core with no worker
 * limit (an event loop has no pool); the cache call's group gets the service's fan-out limit and
 * memcached pool; the memcached get is its round trip, as a delay (no worker limit); the callers get the generator's connections; a residual delay, when there is
 * one, is a hop in front of the service with no limit of its own.
 */
export function calibratedTopology(template: Template, fit: Fit): { raw: Record<string, unknown>; topology: Topology } {
  const raw = structuredClone(template.raw);
  const { entry, cache, cacheGroup, store } = template.shape;
  const section = (name: string) => (raw[name] ??= {}) as Record<string, Record<string, unknown>>;
  const services = section('services');
  const groups = section('clientGroups');
  const service = services[entry]!;
  service.workers = 'inf';
  service.cpus = fit.cpus;
  service.serviceTime = '0us';
  service.itemTime = itemTimeOf(fit);

  const s = fit.settings;
  const group = (groups[cacheGroup] ??= {});
  group.fanoutLimit = s.limit;
  group.timeout = durationText(s.operationTimeoutUs);
  group.pool = { ...(group.pool as object), maxOpen: s.poolMaxOpen, maxIdle: s.poolMaxIdle, checkoutTimeout: durationText(s.checkoutTimeoutUs) };

  const cacheSpec = section('caches')[cache]!;
  // The measured get is a round trip: mostly the loopback and the wake-up of the caller, which do
  // not queue at memcached (its own time per get is a few µs, far from its limit at these rates).
  // On its few worker threads the round trip would make memcached the bottleneck it is not.
  cacheSpec.workers = 'inf';
  cacheSpec.serviceTime = exactMeanUs(fit.memcached.getUs);
  if (fit.warmKeys !== undefined) Object.assign(cacheSpec, { warm: true, capacity: fit.warmKeys });
  if (store !== undefined) section('databases')[store]!.latency = durationText(s.storeDelayUs);

  const caller = template.shape.caller ?? 'users';
  raw.caller = caller;
  const callers = (groups[caller] ??= {});
  callers.pool = { ...(callers.pool as object), maxOpen: fit.callerConnections, pipelining: fit.callerPipelining };
  callers.timeout = durationText(fit.callerTimeoutUs);

  if (fit.networkUs !== undefined && fit.networkUs > 0) {
    if (services[NETWORK] !== undefined) throw new CalibrationInputError(`the topology already has a service named ${NETWORK}`, 'rename it');
    services[NETWORK] = { workers: 'inf', cpus: 'inf', serviceTime: delayOf(fit.networkDelayUs ?? [fit.networkUs]), calls: [{ to: entry, via: NETWORK }] };
    groups[NETWORK] = { pool: { maxOpen: 'inf', maxIdle: 'inf' } };
    raw.entry = NETWORK;
  }
  const parsed = TopologySchema.safeParse(raw);
  if (!parsed.success) throw new Error(`calibrated topology is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return { raw, topology: parsed.data };
}

/**
 * The per-item CPU: its exact mean, or with GC pauses a mix — the base time most of the time, the
 * base plus a pause for one item in 1/perItem of each kind — whose mean is still the fitted one.
 */
function itemTimeOf(fit: Fit): ReturnType<typeof exactMeanUs> {
  const pauses = fit.pauses ? [fit.pauses.minor, fit.pauses.major].filter((p) => p.perItem > 0 && p.meanUs > 0) : [];
  if (pauses.length === 0) return exactMeanUs(fit.itemTimeUs);
  const baseUs = Math.max(0, fit.itemTimeUs - pauses.reduce((us, p) => us + p.perItem * p.meanUs, 0));
  const base = exactMeanUs(baseUs);
  const baseValues = typeof base === 'string' ? [{ value: base, weight: 1 }] : base.values;
  const paused = pauses.reduce((share, p) => share + p.perItem, 0);
  return {
    type: 'empirical',
    values: [
      ...baseValues.map((v) => ({ value: v.value, weight: v.weight * (1 - paused) })),
      ...pauses.map((p) => ({ value: durationText(Math.round(baseUs + p.meanUs)), weight: p.perItem })),
    ],
  };
}

/** Equally likely delays (µs) as a topology duration: one fixed value, or an empirical law of the distinct ones. */
function delayOf(delaysUs: readonly number[]): string | { type: 'empirical'; values: { value: string; weight: number }[] } {
  const counts = new Map<number, number>();
  for (const us of delaysUs) counts.set(Math.round(us), (counts.get(Math.round(us)) ?? 0) + 1);
  if (counts.size === 1) return durationText([...counts.keys()][0]!);
  return { type: 'empirical', values: [...counts].sort((a, b) => a[0] - b[0]).map(([us, n]) => ({ value: durationText(us), weight: n })) };
}

/** Whole µs as a topology writes them: "5s", "100ms", "660us". */
export function durationText(us: number): string {
  if (us > 0 && us % 1_000_000 === 0) return `${us / 1_000_000}s`;
  if (us > 0 && us % 1000 === 0) return `${us / 1000}ms`;
  return `${us}us`;
}

/**
 * A duration of fractional µs as the model can hold it (durations are whole µs): the two whole
 * values around it, weighted so that the mean is exact — 12.3 µs is 12 µs 70% and 13 µs 30%.
 */
export function exactMeanUs(us: number): string | { type: 'empirical'; values: { value: string; weight: number }[] } {
  const low = Math.floor(us);
  const share = Math.round((us - low) * 100) / 100;
  if (share === 0) return `${low}us`;
  if (share === 1) return `${low + 1}us`;
  return {
    type: 'empirical',
    values: [
      { value: `${low}us`, weight: Math.round((1 - share) * 100) / 100 },
      { value: `${low + 1}us`, weight: share },
    ],
  };
}

/** The calibrated topology as YAML, headed by what was fitted and from where. */
export function topologyYaml(raw: Record<string, unknown>, header: string[]): string {
  return `${header.map((line) => `# ${line}`).join('\n')}\n${stringify(raw)}`;
}
