import { Gauge, Registry } from 'prom-client';
import type { LiveInterval, LivePhase, LiveRun } from '../pipeline/live.ts';
import { CatalogPublisher } from './catalog-series.ts';
import { registerCustom } from './custom-metric.ts';
import { CumulativeHistogram } from './cumulative-histogram.ts';
import { TotalCounter } from './total-counter.ts';

/*
 * The run as Prometheus series, updated once per closed interval from the pipeline's live snapshot:
 * nothing here runs per request. Counts are counters (measured requests, the warm-up excluded, as in
 * result.json), latency a histogram, gauges only levels. Every series carries the run's identity
 * (profile, run, segment, target), so consecutive runs are distinct series, never a counter reset.
 */

/** The run's phase, and `done` once it has ended (while the endpoint lingers). */
export type MetricsPhase = LivePhase | 'done';
const PHASES: readonly MetricsPhase[] = ['warm-up', 'measured', 'drain', 'done'];

export class RunMetrics {
  /** Prometheus's text format (0.0.4), which every scraper and `promtool check metrics` read. */
  readonly registry = new Registry();
  private readonly registers = [this.registry];
  private readonly info = new Gauge({
    name: 'stampede_run_info',
    help: 'always 1; its labels (profile, run, segment, target) are on every series too',
    registers: this.registers,
  });
  private readonly requests = new TotalCounter('stampede_requests_total', 'measured requests completed or dropped, by outcome: ok, or the error reason (dropped included)');
  private readonly kindRequests = new TotalCounter('stampede_kind_requests_total', 'measured requests by request kind and outcome (ok, failed)');
  private readonly clientRequests = new TotalCounter('stampede_client_requests_total', 'measured requests by client and outcome (ok, failed)');
  private readonly sent = new TotalCounter('stampede_requests_sent_total', 'requests sent, warm-up included');
  private readonly asked = new TotalCounter('stampede_requests_asked_total', 'requests the schedule asked for, warm-up included (its expected count, so fractional)');
  private readonly latency = new CumulativeHistogram('stampede_latency_seconds', 'latency of measured requests from their intended send time');
  private readonly elapsed = new Gauge({ name: 'stampede_run_elapsed_seconds', help: 'end of the last closed interval, from the run start', registers: this.registers });
  private readonly planned = new Gauge({ name: 'stampede_run_planned_seconds', help: 'warm-up plus measured duration of the plan', registers: this.registers });
  private readonly phase = new Gauge({
    name: 'stampede_run_phase',
    help: '1 for the phase the run is in (warm-up, measured, drain; done once it has ended), 0 for the others',
    labelNames: ['phase'],
    registers: this.registers,
  });
  private readonly catalog = new CatalogPublisher(this.registry);
  private readonly restartable = [this.requests, this.kindRequests, this.clientRequests, this.sent, this.asked, this.latency, this.catalog];
  private identity: string | undefined;
  private lastElapsedUs = 0;

  constructor() {
    for (const metric of [this.requests, this.kindRequests, this.clientRequests, this.sent, this.asked, this.latency]) registerCustom(this.registry, metric);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * The exposition text of every series; empty before the first interval, whose snapshot names the
   * run: a series without the run's labels would be a series of no run.
   */
  text(): Promise<string> {
    return this.identity === undefined ? Promise.resolve('') : this.registry.metrics();
  }

  update(live: LiveInterval): void {
    this.follow(live);
    this.updateCounters(live);
    this.elapsed.set(live.elapsedUs / 1e6);
    this.planned.set(live.plannedUs / 1e6);
    this.setPhase(live.phase);
    this.latency.set(
      live.latency.boundsUs.map((us) => us / 1e6),
      live.latency.cumulative,
      live.latency.count,
      live.latency.sumUs / 1e6,
    );
    const seconds = (live.interval.coveredMs ?? live.intervalUs / 1000) / 1000;
    this.catalog.update(live.interval.gauges, live.gauges, seconds);
  }

  /** The run has ended: its last figures stay as they are, the phase says so. */
  finish(): void {
    if (this.identity !== undefined) this.setPhase('done');
  }

  /**
   * Another run (another identity) starts its series from nothing; a qualification's next step (the
   * same identity, its clock back at the start) adds to the series of the steps before it.
   */
  private follow(live: LiveInterval): void {
    const identity = identityOf(live.run);
    if (identity !== this.identity) {
      if (this.identity !== undefined) this.registry.resetMetrics();
      this.registry.setDefaultLabels(labelsOf(live.run));
      this.info.set(1);
      this.identity = identity;
    } else if (live.elapsedUs <= this.lastElapsedUs) {
      for (const metric of this.restartable) metric.restart();
    }
    this.lastElapsedUs = live.elapsedUs;
  }

  private updateCounters(live: LiveInterval): void {
    const { totals } = live;
    this.requests.set({ outcome: 'ok' }, totals.ok);
    for (const [reason, count] of Object.entries(totals.failedByReason)) this.requests.set({ outcome: reason }, count);
    for (const [kind, c] of Object.entries(totals.byKind)) {
      this.kindRequests.set({ kind, outcome: 'ok' }, c.ok);
      this.kindRequests.set({ kind, outcome: 'failed' }, c.failed);
    }
    for (const [client, c] of Object.entries(totals.byClient)) {
      this.clientRequests.set({ client, outcome: 'ok' }, c.ok);
      this.clientRequests.set({ client, outcome: 'failed' }, c.failed);
    }
    this.sent.add({}, live.interval.sent);
    this.asked.add({}, (live.askedRps * live.intervalUs) / 1e6);
  }

  private setPhase(current: MetricsPhase): void {
    for (const phase of PHASES) this.phase.set({ phase }, phase === current ? 1 : 0);
  }
}

function labelsOf(run: LiveRun): Record<string, string> {
  return { profile: run.profile, run: run.id, segment: run.segment, target: run.target };
}

function identityOf(run: LiveRun): string {
  return JSON.stringify(labelsOf(run));
}
