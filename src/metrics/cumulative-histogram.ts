import type { CustomMetric, MetricFamily, SeriesValue } from './custom-metric.ts';

interface Figures {
  /** `cumulative[i]` observations ≤ `bounds[i]`. */
  cumulative: readonly number[];
  count: number;
  sum: number;
}

const NONE: Figures = { cumulative: [], count: 0, sum: 0 };

/**
 * A Prometheus histogram whose buckets are computed elsewhere (from the run's HDR histogram, once per
 * interval) and only published here: prom-client's Histogram takes one observation per call, which
 * would mean one call per request. The bucket series are cumulative, the last one `+Inf`. As with
 * TotalCounter, `restart()` keeps what earlier sources counted as a base.
 */
export class CumulativeHistogram implements CustomMetric {
  private bounds: readonly number[] = [];
  private base: Figures = NONE;
  private current: Figures = NONE;

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The current source's figures: `cumulative[i]` observations ≤ `bounds[i]`, `count` in all, summing to `sum`. */
  set(bounds: readonly number[], cumulative: readonly number[], count: number, sum: number): void {
    this.bounds = bounds;
    this.current = { cumulative, count, sum };
  }

  restart(): void {
    this.base = this.total();
    this.current = NONE;
  }

  reset(): void {
    this.bounds = [];
    this.base = NONE;
    this.current = NONE;
  }

  get(): Promise<MetricFamily> {
    const { cumulative, count, sum } = this.total();
    const bucket = `${this.name}_bucket`;
    const values: SeriesValue[] = [
      ...this.bounds.map((le, i) => ({ metricName: bucket, labels: { le }, value: cumulative[i] ?? 0 })),
      { metricName: bucket, labels: { le: '+Inf' }, value: count },
      { metricName: `${this.name}_sum`, labels: {}, value: sum },
      { metricName: `${this.name}_count`, labels: {}, value: count },
    ];
    return Promise.resolve({ name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values });
  }

  /** Base plus current, bucket by bucket (every source has the same bounds). */
  private total(): Figures {
    const { base, current } = this;
    return {
      cumulative: this.bounds.map((_, i) => (base.cumulative[i] ?? 0) + (current.cumulative[i] ?? 0)),
      count: base.count + current.count,
      sum: base.sum + current.sum,
    };
  }
}
