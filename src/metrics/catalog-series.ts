import { Gauge, type Registry } from 'prom-client';
import { parseGaugeKey, type GaugeCatalog, type GaugeSpec, type GaugeUnit } from '../recorder/gauges.ts';
import { registerCustom } from './custom-metric.ts';
import { TotalCounter } from './total-counter.ts';

/*
 * The run's gauge catalog as Prometheus series, named and typed as Prometheus users expect:
 * snake_case in base units (`generatorLagMs` → `stampede_generator_lag_seconds`), levels as gauges,
 * counts and rates as counters (`hits` → `stampede_hits_total`, `attemptsRps` →
 * `stampede_attempts_total`, `generatorCpu` in cores → `stampede_generator_cpu_seconds_total`).
 */

/**
 * How an interval's figure reaches the series: a level is set as it is; a counter takes the run's
 * total so far, the interval's events, or a per-second rate times the interval's length.
 */
export type Feed = 'level' | 'total' | 'events' | 'rate';

export interface CatalogSeries {
  name: string;
  type: 'gauge' | 'counter';
  feed: Feed;
  /** Multiplies the figure into the base unit (ms → seconds, MB → bytes). */
  scale: number;
  help: string;
}

interface UnitRule {
  /** The unit's word in a gauge name, dropped from the Prometheus name (`nicBacklogMs` → `nic_backlog`). */
  word?: string;
  suffix: string;
  scale: number;
  feed: Feed;
  /** How HELP says what the series holds. */
  note: string;
}

const UNIT_RULES: Record<GaugeUnit, UnitRule> = {
  count: { suffix: '', scale: 1, feed: 'level', note: '' },
  ratio: { suffix: '_ratio', scale: 1, feed: 'level', note: ' (0 to 1)' },
  ms: { word: 'ms', suffix: '_seconds', scale: 1e-3, feed: 'level', note: ' (seconds)' },
  // The model's MB, as its memory sizes are written (heaps): mebibytes.
  mb: { word: 'mb', suffix: '_bytes', scale: 2 ** 20, feed: 'level', note: ' (bytes)' },
  rps: { word: 'rps', suffix: '_total', scale: 1, feed: 'rate', note: '; counted, so rate() gives it back' },
  cores: { suffix: '_seconds_total', scale: 1, feed: 'rate', note: '; CPU seconds, so rate() gives the cores' },
};

/** `generatorLagMaxMs` → `generator_lag_max_ms`. */
function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** The Prometheus series of one gauge of the catalog. */
export function catalogSeries(spec: Omit<GaugeSpec, 'family'>): CatalogSeries {
  const rule = UNIT_RULES[spec.unit];
  const words = snakeCase(spec.name)
    .split('_')
    .filter((w) => w !== rule.word);
  const stem = `stampede_${words.join('_')}`;
  if (spec.counts !== undefined) {
    return { name: `${stem}_total`, type: 'counter', feed: spec.counts === 'run' ? 'total' : 'events', scale: 1, help: spec.help };
  }
  const name = stem.endsWith(rule.suffix) ? stem : `${stem}${rule.suffix}`;
  return { name, type: rule.feed === 'level' ? 'gauge' : 'counter', feed: rule.feed, scale: rule.scale, help: `${spec.help}${rule.note}` };
}

/** A gauge the run did not declare (a bug elsewhere): shown as a level, in the family `undeclared`. */
function undeclared(name: string): Omit<GaugeSpec, 'family'> {
  return { name, unit: 'count', help: `gauge ${name}, not declared by the run` };
}

type Published = { series: CatalogSeries; gauge: Gauge<'component' | 'family'> } | { series: CatalogSeries; counter: TotalCounter };

/** Publishes the catalog's gauges into a registry, once per interval. */
export class CatalogPublisher {
  private readonly published = new Map<string, Published>();

  constructor(private readonly registry: Registry) {}

  /** One interval's gauges; `seconds` is the interval's length (what a rate is multiplied by). */
  update(values: Readonly<Record<string, number>>, catalog: GaugeCatalog, seconds: number): void {
    for (const [key, value] of Object.entries(values)) {
      const { name, instance } = parseGaugeKey(key);
      const spec = catalog[name];
      const target = this.publishedFor(spec ?? undeclared(name));
      const family = spec?.family ?? 'undeclared';
      const labels: Record<string, string> = instance === undefined ? { family } : { family, component: instance };
      const scaled = value * target.series.scale;
      if ('gauge' in target) target.gauge.set(labels, scaled);
      else if (target.series.feed === 'total') target.counter.set(labels, scaled);
      else target.counter.add(labels, target.series.feed === 'rate' ? scaled * seconds : scaled);
    }
  }

  /** A qualification's next step: its counts start again from 0. */
  restart(): void {
    for (const p of this.published.values()) if ('counter' in p) p.counter.restart();
  }

  private publishedFor(spec: Omit<GaugeSpec, 'family'>): Published {
    let published = this.published.get(spec.name);
    if (published) return published;
    const series = catalogSeries(spec);
    if (series.type === 'gauge') {
      published = { series, gauge: new Gauge({ name: series.name, help: series.help, labelNames: ['component', 'family'], registers: [this.registry] }) };
    } else {
      const counter = new TotalCounter(series.name, series.help);
      registerCustom(this.registry, counter);
      published = { series, counter };
    }
    this.published.set(spec.name, published);
    return published;
  }
}
