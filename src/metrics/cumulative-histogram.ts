/**
 * A Prometheus histogram whose buckets are computed elsewhere (from the run's HDR histogram, once per
 * interval) and only published here: prom-client's Histogram takes one observation per call, which
 * would mean one call per request. The registry serialises any metric that answers `get()` with
 * prom-client's value format; the bucket series are cumulative, the last one `+Inf`.
 */
interface SeriesValue {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

export class CumulativeHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private bounds: readonly number[] = [];
  private cumulative: readonly number[] = [];
  private count = 0;
  private sum = 0;

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** Replaces the figures: `cumulative[i]` observations ≤ `bounds[i]`, `count` in all, summing to `sum`. */
  set(bounds: readonly number[], cumulative: readonly number[], count: number, sum: number): void {
    this.bounds = bounds;
    this.cumulative = cumulative;
    this.count = count;
    this.sum = sum;
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: SeriesValue[] }> {
    const values: SeriesValue[] = [
      ...this.bounds.map((le, i) => ({ metricName: `${this.name}_bucket`, labels: { le }, value: this.cumulative[i]! })),
      { metricName: `${this.name}_bucket`, labels: { le: '+Inf' }, value: this.count },
      { metricName: `${this.name}_sum`, labels: {}, value: this.sum },
      { metricName: `${this.name}_count`, labels: {}, value: this.count },
    ];
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    this.set([], [], 0, 0);
  }
}
