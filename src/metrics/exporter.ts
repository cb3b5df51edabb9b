import { Counter, Gauge, type Metric, type OpenMetricsContentType, Registry } from 'prom-client';
import type { LiveInterval } from '../pipeline/live.ts';
import { parseGaugeKey, type GaugeCatalog, type GaugeSpec } from '../recorder/gauges.ts';
import { CumulativeHistogram } from './cumulative-histogram.ts';

/*
 * The run as Prometheus series, updated once per closed interval from the pipeline's live snapshot:
 * nothing here runs per request. Counters count measured requests (the warm-up excluded, as in
 * result.json); gauges hold the last interval's figures.
 */

/** Prefix of every gauge of the run's catalog: `hitRatio` → `stampede_gauge_hitRatio`. */
export const GAUGE_PREFIX = 'stampede_gauge_';

const QUANTILES = [
  ['0.5', 'p50'],
  ['0.99', 'p99'],
  ['1', 'max'],
] as const;

export class RunMetrics {
  readonly registry = new Registry<OpenMetricsContentType>();
  private readonly registers = [this.registry];
  private readonly requests = new Counter({
    name: 'stampede_requests',
    help: 'measured requests by outcome: ok, or the error reason (dropped included)',
    labelNames: ['outcome'],
    registers: this.registers,
  });
  private readonly kindRequests = new Counter({
    name: 'stampede_kind_requests',
    help: 'measured requests by request kind and outcome (ok, failed)',
    labelNames: ['kind', 'outcome'],
    registers: this.registers,
  });
  private readonly clientRequests = new Counter({
    name: 'stampede_client_requests',
    help: 'measured requests by client and outcome (ok, failed)',
    labelNames: ['client', 'outcome'],
    registers: this.registers,
  });
  private readonly sent = new Counter({ name: 'stampede_sent', help: 'requests sent, warm-up included', registers: this.registers });
  private readonly askedRps = new Gauge({ name: 'stampede_asked_rps', help: 'rate the schedule asked for over the last interval', registers: this.registers });
  private readonly sentRps = new Gauge({ name: 'stampede_sent_rps', help: 'requests sent per second over the last interval', registers: this.registers });
  private readonly goodputRps = new Gauge({ name: 'stampede_goodput_rps', help: 'successful requests completed per second over the last interval', registers: this.registers });
  private readonly intervalDropped = new Gauge({
    name: 'stampede_interval_dropped',
    help: 'requests dropped in the last interval (the in-flight cap was reached)',
    registers: this.registers,
  });
  private readonly intervalLatency = new Gauge({
    name: 'stampede_interval_latency_seconds',
    help: 'latency quantiles of the last interval (from intended send time)',
    labelNames: ['quantile'],
    registers: this.registers,
  });
  private readonly elapsed = new Gauge({ name: 'stampede_run_elapsed_seconds', help: 'end of the last closed interval, from run start', registers: this.registers });
  private readonly planned = new Gauge({ name: 'stampede_run_planned_seconds', help: 'warm-up plus measured duration of the plan', registers: this.registers });
  private readonly phase = new Gauge({
    name: 'stampede_run_phase',
    help: '1 for the phase the last interval was in (warm-up, measured, drain)',
    labelNames: ['phase'],
    registers: this.registers,
  });
  private readonly latency = new CumulativeHistogram('stampede_latency_seconds', 'latency of measured requests from intended send time, cumulative');
  private readonly gauges = new Map<string, Gauge<'component' | 'family'>>();
  /** Per counter, the last cumulative total pushed into each label set: counters grow by the difference. */
  private readonly counted = new Map<Counter<string>, Map<string, number>>();

  constructor() {
    this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    // The registry serialises any metric with get(); prom-client's types list only its own four classes.
    this.registry.registerMetric(this.latency as unknown as Metric);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The OpenMetrics text of every series. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  update(live: LiveInterval): void {
    this.updateCounters(live);
    const { interval } = live;
    this.askedRps.set(live.askedRps);
    this.sentRps.set(live.sentRps);
    this.goodputRps.set(interval.goodputRps);
    this.intervalDropped.set(interval.dropped);
    for (const [quantile, field] of QUANTILES) this.intervalLatency.set({ quantile }, interval.latencyUs[field] / 1e6);
    this.elapsed.set(live.elapsedUs / 1e6);
    this.planned.set(live.plannedUs / 1e6);
    for (const phase of ['warm-up', 'measured', 'drain'] as const) this.phase.set({ phase }, phase === live.phase ? 1 : 0);
    this.latency.set(
      live.latency.boundsUs.map((us) => us / 1e6),
      live.latency.cumulative,
      live.latency.count,
      live.latency.sumUs / 1e6,
    );
    this.updateGauges(interval.gauges, live.gauges);
  }

  private updateCounters(live: LiveInterval): void {
    const { totals } = live;
    this.advance(this.requests, { outcome: 'ok' }, totals.ok);
    for (const [reason, count] of Object.entries(totals.failedByReason)) this.advance(this.requests, { outcome: reason }, count);
    for (const [kind, c] of Object.entries(totals.byKind)) {
      this.advance(this.kindRequests, { kind, outcome: 'ok' }, c.ok);
      this.advance(this.kindRequests, { kind, outcome: 'failed' }, c.failed);
    }
    for (const [client, c] of Object.entries(totals.byClient)) {
      this.advance(this.clientRequests, { client, outcome: 'ok' }, c.ok);
      this.advance(this.clientRequests, { client, outcome: 'failed' }, c.failed);
    }
    this.sent.inc(live.interval.sent);
  }

  /** Brings a counter series up to a cumulative total (a series first seen at 0 is exported at 0). */
  private advance<L extends string>(counter: Counter<L>, labels: Record<L, string>, total: number): void {
    let series = this.counted.get(counter);
    if (!series) this.counted.set(counter, (series = new Map()));
    const key = JSON.stringify(labels);
    const last = series.get(key);
    if (last === undefined || total > last) counter.inc(labels as Partial<Record<L, string>>, total - (last ?? 0));
    series.set(key, Math.max(total, last ?? 0));
  }

  private updateGauges(values: Readonly<Record<string, number>>, catalog: GaugeCatalog): void {
    for (const [key, value] of Object.entries(values)) {
      const { name, instance } = parseGaugeKey(key);
      const gauge = this.gaugeFor(name, catalog[name]);
      const family = catalog[name]?.family ?? 'undeclared';
      gauge.set(instance === undefined ? { family } : { family, component: instance }, value);
    }
  }

  private gaugeFor(name: string, spec: GaugeSpec | undefined): Gauge<'component' | 'family'> {
    let gauge = this.gauges.get(name);
    if (!gauge) {
      const help = spec ? `${spec.help} (${spec.unit})` : `gauge ${name}`;
      gauge = new Gauge({ name: `${GAUGE_PREFIX}${name}`, help, labelNames: ['component', 'family'], registers: this.registers });
      this.gauges.set(name, gauge);
    }
    return gauge;
  }
}
