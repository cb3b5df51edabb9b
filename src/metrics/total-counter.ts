import type { CustomMetric, Labels, MetricFamily } from './custom-metric.ts';

interface Series {
  labels: Labels;
  /** What earlier sources counted (a qualification's earlier steps). */
  base: number;
  /** What the current source counted. */
  total: number;
}

/**
 * A Prometheus counter fed from figures the run keeps: a running total (`set`) or the events of the
 * interval (`add`). `restart()` marks a source that starts again from 0 (a qualification's next
 * step): what was counted so far becomes the base, so the series keeps rising and `rate()` sees no
 * reset.
 */
export class TotalCounter implements CustomMetric {
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {
    if (!name.endsWith('_total')) throw new Error(`counter ${name}: a counter's name ends in _total`);
  }

  /** The source's running total for these labels; a counter never goes down, so a smaller one is ignored. */
  set(labels: Labels, total: number): void {
    const series = this.entry(labels);
    series.total = Math.max(series.total, total);
  }

  /** Events counted since the last update. */
  add(labels: Labels, events: number): void {
    this.entry(labels).total += events;
  }

  restart(): void {
    for (const series of this.series.values()) {
      series.base += series.total;
      series.total = 0;
    }
  }

  reset(): void {
    this.series.clear();
  }

  get(): Promise<MetricFamily> {
    const values = [...this.series.values()].map((s) => ({ labels: s.labels, value: s.base + s.total }));
    return Promise.resolve({ name: this.name, help: this.help, type: 'counter', aggregator: 'sum', values });
  }

  private entry(labels: Labels): Series {
    const key = JSON.stringify(labels);
    let series = this.series.get(key);
    if (!series) this.series.set(key, (series = { labels, base: 0, total: 0 }));
    return series;
  }
}
