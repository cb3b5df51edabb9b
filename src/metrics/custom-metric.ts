import type { Metric, Registry } from 'prom-client';

/*
 * prom-client's registry serialises any object that answers `get()` in its value format, though its
 * types list only its own classes. Stampede's counters and histogram are such objects: their
 * figures come from totals the run already keeps, where prom-client's classes can only add.
 */

export type Labels = Readonly<Record<string, string | number>>;

export interface SeriesValue {
  /** The sample's name when it is not the metric's own (a histogram's `_bucket`, `_sum`, `_count`). */
  metricName?: string;
  labels: Labels;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: SeriesValue[];
}

export interface CustomMetric {
  readonly name: string;
  get(): Promise<MetricFamily>;
  /** Forgets every series (another run starts). */
  reset(): void;
}

export function registerCustom(registry: Registry, metric: CustomMetric): void {
  registry.registerMetric(metric as unknown as Metric);
}
