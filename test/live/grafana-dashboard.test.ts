import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { GENERATOR_GAUGES } from '../../src/generator/health.ts';
import { RunMetrics } from '../../src/metrics/exporter.ts';
import type { LiveInterval } from '../../src/pipeline/live.ts';
import { SHARED_GAUGES, defineGauge, gaugeCatalog } from '../../src/recorder/gauges.ts';
import { exposedSeries } from './exposition.ts';

interface Panel {
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  targets: { refId: string; expr: string }[];
}

const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
  title: string;
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; definition?: string }[] };
};

/** One interval of a real-target run with every kind of series: outcomes, kinds, clients, run-wide and per-component gauges. */
function realTargetInterval(): LiveInterval {
  const queueDepth = defineGauge('queueDepth', 'count', 'queues', 'requests waiting for a worker at the sample');
  const catalog = gaugeCatalog([SHARED_GAUGES.inFlight, SHARED_GAUGES.openConnections, ...Object.values(GENERATOR_GAUGES), queueDepth]);
  return {
    run: { profile: 'checkout', id: '2026-01-01T00:00:00.000Z', segment: '0/1', target: 'http://127.0.0.1:8080' },
    interval: {
      tMs: 1000,
      warmup: false,
      sent: 10,
      ok: 9,
      failed: 1,
      dropped: 1,
      goodputRps: 9,
      latencyUs: { p50: 800, p99: 2000, max: 3000 },
      gauges: { inFlight: 2, openConnections: 8, generatorCpu: 0.2, generatorLagMs: 0.1, generatorLagMaxMs: 1, 'queueDepth.api': 0 },
    },
    intervalUs: 1_000_000,
    elapsedUs: 2_000_000,
    plannedUs: 10_000_000,
    phase: 'measured',
    askedRps: 10,
    sentRps: 10,
    totals: { ok: 9, failedByReason: { dropped: 1 }, byKind: { get: { ok: 9, failed: 1 } }, byClient: { web: { ok: 9, failed: 1 } } },
    latency: { boundsUs: [1000, 10_000], cumulative: [5, 9], count: 9, sumUs: 9000 },
    gauges: catalog,
  };
}

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset']);

/** The metric names a PromQL expression selects by name (strings, matchers, ranges and grouping labels removed). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)].filter((m) => m[2] === undefined && !KEYWORDS.has(m[1]!)).map((m) => m[1]!);
}

/** Regular expressions of `__name__=~"…"` matchers; `__name__="$var"` stands for the names the variable's query selects. */
function nameRegexes(expr: string): RegExp[] {
  const variables = [...expr.matchAll(/__name__\s*=\s*"\$(\w+)"/g)].map((m) => {
    const definition = dashboard.templating.list.find((v) => v.name === m[1])?.definition ?? '';
    return /__name__\s*=~\s*"([^"]+)"/.exec(definition)?.[1] ?? '(?!)';
  });
  return [...[...expr.matchAll(/__name__\s*=~\s*"([^"]+)"/g)].map((m) => m[1]!), ...variables].map((re) => new RegExp(`^(?:${re})$`));
}

let exposed: Set<string>;
beforeAll(async () => {
  const metrics = new RunMetrics();
  metrics.update(realTargetInterval());
  exposed = exposedSeries(await metrics.text());
});

describe('docs/grafana-dashboard.json', () => {
  it('is a Grafana dashboard model: title, uid, schema version, panels with a place and queries', () => {
    expect(dashboard.title).toBeTruthy();
    expect(dashboard.uid).toMatch(/^[a-z0-9-]+$/);
    expect(dashboard.schemaVersion).toBeGreaterThan(30);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'job', 'instance', 'run', 'family', 'counter']);
    for (const panel of dashboard.panels) {
      expect(panel.type).toBe('timeseries');
      expect(panel.gridPos.w).toBeGreaterThan(0);
      expect(panel.targets.length).toBeGreaterThan(0);
      expect(new Set(panel.targets.map((t) => t.refId)).size).toBe(panel.targets.length);
    }
  });

  it('queries only series the exporter exposes', () => {
    for (const { targets } of dashboard.panels) {
      for (const { expr } of targets) {
        const names = metricNames(expr);
        const regexes = nameRegexes(expr);
        expect(names.length + regexes.length, expr).toBeGreaterThan(0);
        for (const name of names) expect(exposed, `${name} in ${expr}`).toContain(name);
        for (const re of regexes)
          expect(
            [...exposed].some((n) => re.test(n)),
            `${re} in ${expr}`,
          ).toBe(true);
      }
    }
  });

  it('narrows every selector to the chosen job, instance and run', () => {
    for (const { targets } of dashboard.panels)
      for (const { expr } of targets)
        for (const [selector] of expr.matchAll(/\{[^}]*\}/g)) for (const label of ['job', 'instance', 'run']) expect(selector, expr).toContain(`${label}=~"$${label}"`);
  });

  it('has the panels docs/live.md promises', () => {
    const titles = dashboard.panels.map((p) => p.title);
    for (const t of [
      'Requests by outcome',
      'Asked vs sent rate',
      'Latency',
      'In flight',
      'Dropped',
      'Generator event-loop lag',
      'Generator CPU',
      'Gauges: $family',
      'Per second: $counter',
    ])
      expect(titles).toContain(t);
  });

  it('the checker itself finds metric names and ignores functions, labels and strings', () => {
    expect(metricNames('sum by (le) (rate(stampede_latency_seconds_bucket{x="a b"}[$__rate_interval]))')).toEqual(['stampede_latency_seconds_bucket']);
    expect(metricNames('stampede_run_elapsed_seconds / stampede_run_planned_seconds')).toEqual(['stampede_run_elapsed_seconds', 'stampede_run_planned_seconds']);
  });
});
