/*
 * The typed seam between whatever measures a gauge (model components, transports, the generator)
 * and whatever reads it (realism flags, charts, summaries, Prometheus). A gauge is declared once as
 * a GaugeSpec; the driver lists the specs it used in its report, result.json carries them, and
 * readers find a gauge by its spec (family, unit), never by matching strings in its key.
 *
 * Key format in `intervals[].gauges`: `name` for a run-wide gauge, `name.instance` for one per
 * component (`hitRatio.tweet-cache`). Spec names never contain a dot, so the split is unambiguous;
 * an instance may contain dots (a target stat path).
 */

/** What the number is in. `ratio` is 0..1 and printed as a percentage. */
export type GaugeUnit = 'count' | 'ratio' | 'ms' | 'mb' | 'rps' | 'cores';

/**
 * A count of events rather than a level: `interval` counts those of each interval, `run` those since
 * the run started. Prometheus exports both as counters (`_total`), so `rate()` works and a missed
 * scrape loses nothing; a level (at the sample, the interval's mean or maximum) stays a gauge.
 */
export type GaugeCounts = 'interval' | 'run';

/** Which chart and which summary group a gauge belongs to. */
export type GaugeFamily = 'connections' | 'hit-ratio' | 'queues' | 'rates' | 'process' | 'cache' | 'faults' | 'generator' | 'target';

export interface GaugeSpec {
  /** camelCase, no dots: the key's first part. */
  readonly name: string;
  readonly unit: GaugeUnit;
  readonly family: GaugeFamily;
  /** One line for chart legends, Prometheus HELP and the docs. */
  readonly help: string;
  /** Set on a count of events (unit `count`); absent on a level. */
  readonly counts?: GaugeCounts;
  /** Set on the per-interval maximum of a point-sampled gauge: that gauge's name. */
  readonly maxOf?: string;
}

export function defineGauge(name: string, unit: GaugeUnit, family: GaugeFamily, help: string, counts?: GaugeCounts): GaugeSpec {
  if (!/^[a-zA-Z][a-zA-Z0-9]*$/.test(name)) throw new Error(`gauge name "${name}": camelCase letters and digits only`);
  if (counts !== undefined && unit !== 'count') throw new Error(`gauge "${name}": only a count counts events`);
  return Object.freeze({ name, unit, family, help, ...(counts !== undefined && { counts }) });
}

/**
 * Marks `max` (declared `<name>Max`, in `of`'s unit and family) as the most `of` reached at any
 * moment of each interval. A point sample misses what happens between two samples (a thread burst
 * just before an OOM kill), so a reader judging a peak reads this series (see `peakKey`).
 */
export function intervalMaxOf(of: GaugeSpec, max: GaugeSpec): GaugeSpec {
  if (of.counts !== undefined) throw new Error(`gauge "${of.name}": a count has no interval maximum`);
  if (max.name !== `${of.name}Max` || max.unit !== of.unit || max.family !== of.family || max.counts !== undefined) {
    throw new Error(`gauge "${max.name}": the interval maximum of "${of.name}" is "${of.name}Max", a level in its unit and family`);
  }
  return Object.freeze({ ...max, maxOf: of.name });
}

/** The interval key of a gauge: `name`, or `name.instance` for one per component. */
export function gaugeKey(spec: GaugeSpec, instance?: string): string {
  return instance === undefined ? spec.name : `${spec.name}.${instance}`;
}

/** An interval's figure of a gauge (one per component: of `instance`), or undefined when the interval has none. */
export function gaugeValue(gauges: Readonly<Record<string, number>>, spec: GaugeSpec, instance?: string): number | undefined {
  return gauges[gaugeKey(spec, instance)];
}

export interface ParsedGaugeKey {
  name: string;
  instance?: string;
}

export function parseGaugeKey(key: string): ParsedGaugeKey {
  const dot = key.indexOf('.');
  return dot < 0 ? { name: key } : { name: key.slice(0, dot), instance: key.slice(dot + 1) };
}

/** The specs a run used, by name: what result.json carries as `gauges`. */
export type GaugeCatalog = Readonly<Record<string, GaugeSpec>>;

export function gaugeCatalog(specs: Iterable<GaugeSpec>): Record<string, GaugeSpec> {
  const catalog: Record<string, GaugeSpec> = {};
  for (const spec of specs) {
    const seen = catalog[spec.name];
    if (seen && (seen.unit !== spec.unit || seen.family !== spec.family)) throw new Error(`gauge "${spec.name}" declared twice with different units or families`);
    catalog[spec.name] = spec;
  }
  return catalog;
}

/** The spec of an interval key, or undefined when the run did not declare it. */
export function specOf(catalog: GaugeCatalog, key: string): GaugeSpec | undefined {
  return catalog[parseGaugeKey(key).name];
}

/**
 * The key whose series holds `key`'s peaks: its per-interval maximum when the run declared one
 * (`defineIntervalMax`), else `key` itself — its samples are all there is.
 */
export function peakKey(catalog: GaugeCatalog, key: string): string {
  const { name, instance } = parseGaugeKey(key);
  const max = Object.values(catalog).find((spec) => spec.maxOf === name);
  return max === undefined ? key : gaugeKey(max, instance);
}

/** Gauges more than one measurer reports: the model's caches and a real memcached cluster, say. */
export const SHARED_GAUGES = {
  hitRatio: defineGauge('hitRatio', 'ratio', 'hit-ratio', 'cache hits / gets over the interval'),
  openConnections: defineGauge('openConnections', 'count', 'connections', 'connections open at the sample'),
  inFlight: defineGauge('inFlight', 'count', 'queues', 'user requests sent and not yet answered'),
} as const;

/**
 * How one gauge combines across worker threads: the generator's figures are per thread (the worst
 * thread says whether the generator was the limit), the target's stats are the target's (one worker
 * polls them), ratios average, everything else (in flight, connections, rates) adds up.
 */
export type GaugeCombine = 'sum' | 'max' | 'first' | 'mean';

export function combineOf(spec: GaugeSpec | undefined): GaugeCombine {
  if (!spec) return 'sum';
  if (spec.family === 'generator') return 'max';
  if (spec.family === 'target') return 'first';
  return spec.unit === 'ratio' ? 'mean' : 'sum';
}
