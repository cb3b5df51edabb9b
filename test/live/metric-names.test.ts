import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogSeries } from '../../src/metrics/catalog-series.ts';
import { RunMetrics } from '../../src/metrics/exporter.ts';
import type { LiveInterval } from '../../src/pipeline/live.ts';
import { defineGauge, gaugeCatalog, gaugeKey, type GaugeSpec } from '../../src/recorder/gauges.ts';
import { repoRoot } from '../helpers/cli.ts';
import { declaredTypes, exposedSeries, sample } from './exposition.ts';

/*
 * Prometheus's naming conventions, over every series the exporter can expose: the fixed ones and one
 * per gauge declared anywhere in src/ (read from the source, so a gauge added later is checked too).
 */

/** Every `defineGauge(…)` call in src/, as the spec it declares. */
function declaredGauges(): { specs: GaugeSpec[]; calls: number } {
  const specs: GaugeSpec[] = [];
  let calls = 0;
  const call = /defineGauge\(\s*'(\w+)',\s*'(\w+)',\s*'([\w-]+)',\s*(['"])(.*?)\4\s*(?:,\s*'(\w+)'\s*)?,?\s*\)/gs;
  for (const file of readdirSync(join(repoRoot, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(repoRoot, 'src', file), 'utf8');
    calls += [...text.matchAll(/defineGauge\(\s*'/g)].length;
    for (const m of text.matchAll(call)) specs.push(defineGauge(m[1]!, m[2] as GaugeSpec['unit'], m[3] as GaugeSpec['family'], m[5]!, m[6] as GaugeSpec['counts']));
  }
  return { specs, calls };
}

const { specs, calls } = declaredGauges();

/** One interval with every declared gauge, run-wide and for a component. */
function everyGaugeInterval(): LiveInterval {
  const gauges: Record<string, number> = {};
  for (const spec of specs) {
    gauges[gaugeKey(spec)] = 1;
    gauges[gaugeKey(spec, 'api')] = 2;
  }
  return {
    run: { profile: 'checkout', id: '2026-01-01T00:00:00.000Z', segment: '1/4', target: 'http://127.0.0.1:8080' },
    interval: { tMs: 1000, warmup: false, sent: 10, ok: 9, failed: 1, dropped: 1, goodputRps: 9, latencyUs: { p50: 800, p99: 2000, max: 3000 }, gauges },
    intervalUs: 1_000_000,
    elapsedUs: 2_000_000,
    plannedUs: 10_000_000,
    phase: 'measured',
    askedRps: 10,
    sentRps: 10,
    totals: { ok: 9, failedByReason: { dropped: 1 }, byKind: { get: { ok: 9, failed: 1 } }, byClient: { web: { ok: 9, failed: 1 } } },
    latency: { boundsUs: [1000, 10_000], cumulative: [5, 9], count: 9, sumUs: 9000 },
    gauges: gaugeCatalog(specs),
  };
}

/** Units Prometheus names spell in base units instead, and rates it counts instead of naming them. */
const NON_BASE_UNITS = new Set(['ms', 'us', 'ns', 'millis', 'milliseconds', 'microseconds', 'nanoseconds', 'minutes', 'hours', 'days']);
const NON_BASE_SIZES = new Set(['kb', 'mb', 'gb', 'kib', 'mib', 'gib', 'kilobytes', 'megabytes', 'gigabytes']);
const RATES_AND_SHARES = new Set(['rps', 'qps', 'persec', 'percent', 'pct', 'cores']);

let text: string;
let types: Map<string, string>;
beforeAll(async () => {
  const metrics = new RunMetrics();
  metrics.update(everyGaugeInterval());
  text = await metrics.text();
  types = declaredTypes(text);
});

describe('every series the exporter exposes follows Prometheus naming', () => {
  it('reads every gauge declared in src/ (the reader misses none)', () => {
    expect(specs.length).toBeGreaterThan(50);
    expect(specs.length).toBe(calls);
  });

  it('names match ^[a-z_:][a-z0-9_:]*$ and start with stampede_', () => {
    expect(types.size).toBe(10 + specs.length);
    for (const name of types.keys()) {
      expect(name).toMatch(/^[a-z_:][a-z0-9_:]*$/);
      expect(name).toMatch(/^stampede_/);
    }
  });

  it('counters end in _total and nothing else does; histograms expose _bucket, _sum and _count', () => {
    for (const [name, type] of types) {
      expect(['counter', 'gauge', 'histogram'], name).toContain(type);
      expect(name.endsWith('_total'), `${name} is a ${type}`).toBe(type === 'counter');
    }
    const exposed = exposedSeries(text);
    for (const [name] of [...types].filter(([, type]) => type === 'histogram'))
      for (const suffix of ['_bucket', '_sum', '_count']) expect(exposed, name + suffix).toContain(name + suffix);
  });

  it('no unit but _seconds, _bytes and _ratio: no ms, MB, rps or cores in any word of a name', () => {
    for (const name of types.keys())
      for (const word of name.split('_')) expect(NON_BASE_UNITS.has(word) || NON_BASE_SIZES.has(word) || RATES_AND_SHARES.has(word), `${name}: "${word}"`).toBe(false);
  });

  it('every series carries the run’s identity, and stampede_run_info is 1', () => {
    const identity = { profile: 'checkout', run: '2026-01-01T00:00:00.000Z', segment: '1/4', target: 'http://127.0.0.1:8080' };
    expect(sample(text, 'stampede_run_info', identity)).toBe(1);
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))) for (const [k, v] of Object.entries(identity)) expect(line).toContain(`${k}="${v}"`);
  });

  it('no two gauges of the catalog share a series name', () => {
    const names = specs.map((s) => catalogSeries(s).name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('a gauge’s series: base units, counts as counters', () => {
  const series = (name: string, unit: GaugeSpec['unit'], counts?: GaugeSpec['counts']) => catalogSeries(defineGauge(name, unit, 'queues', 'help', counts));

  it('levels stay gauges, milliseconds become seconds and MB bytes', () => {
    expect(series('generatorLagMaxMs', 'ms')).toMatchObject({ name: 'stampede_generator_lag_max_seconds', type: 'gauge', scale: 1e-3 });
    expect(series('memoryMbMax', 'mb')).toMatchObject({ name: 'stampede_memory_max_bytes', type: 'gauge', scale: 2 ** 20 });
    expect(series('hitRatio', 'ratio')).toMatchObject({ name: 'stampede_hit_ratio', type: 'gauge' });
    expect(series('gcShare', 'ratio')).toMatchObject({ name: 'stampede_gc_share_ratio', type: 'gauge' });
    expect(series('inFlight', 'count')).toMatchObject({ name: 'stampede_in_flight', type: 'gauge', feed: 'level' });
  });

  it('counts, rates and CPU become counters of what they count', () => {
    expect(series('hits', 'count', 'interval')).toMatchObject({ name: 'stampede_hits_total', type: 'counter', feed: 'events' });
    expect(series('dialErrors', 'count', 'run')).toMatchObject({ name: 'stampede_dial_errors_total', type: 'counter', feed: 'total' });
    expect(series('attemptsRps', 'rps')).toMatchObject({ name: 'stampede_attempts_total', type: 'counter', feed: 'rate' });
    expect(series('generatorCpu', 'cores')).toMatchObject({ name: 'stampede_generator_cpu_seconds_total', type: 'counter', feed: 'rate' });
  });

  it('a counter adds up the intervals: events as they are, a rate times the interval covered', async () => {
    const hits = defineGauge('hits', 'count', 'hit-ratio', 'gets that hit during the interval', 'interval');
    const cpu = defineGauge('generatorCpu', 'cores', 'generator', 'CPU over the interval');
    const metrics = new RunMetrics();
    const base = everyGaugeInterval();
    const interval = (elapsedUs: number, gauges: Record<string, number>, coveredMs?: number): LiveInterval => ({
      ...base,
      elapsedUs,
      interval: { ...base.interval, gauges, ...(coveredMs !== undefined && { coveredMs }) },
      gauges: gaugeCatalog([hits, cpu]),
    });
    metrics.update(interval(1_000_000, { hits: 5, generatorCpu: 0.5 }));
    metrics.update(interval(2_000_000, { hits: 7, generatorCpu: 0.5 }, 200));
    const out = await metrics.text();
    expect(sample(out, 'stampede_hits_total', {})).toBe(12);
    expect(sample(out, 'stampede_generator_cpu_seconds_total', {})).toBeCloseTo(0.6, 9);
  });
});
