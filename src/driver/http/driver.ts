import type { HttpSettings } from '../../profile/protocols/http/section.ts';
import type { HttpTarget } from '../../profile/protocols/http/spec.ts';
import type { Profile } from '../../profile/types.ts';
import type { ScheduledRequest } from '../../schedule/types.ts';
import { OpenLoopRun, openLoopOptions } from '../open-loop.ts';
import { dialBeforeStart } from '../start-barrier.ts';
import type { Transport, TransportRun } from '../transport.ts';
import { primeOpenLoop } from '../prime.ts';
import type { DriverReport, HttpTransportReport } from '../../recorder/driver-report.ts';
import type { GaugeSpec } from '../../recorder/gauges.ts';
import type { Driver, DriverOptions, RunContext } from '../types.ts';
import { HttpConnection, type ConnectionOwner } from './connection.ts';
import { H2Transport } from './h2-transport.ts';
import { ConnectionGauges, ConnectionPicker, httpTransportReport, maxValueBytes } from './http-common.ts';
import { HttpOutcomes, withDialFailure } from './outcomes.ts';
import { StatsPoller, TARGET_STAT_GAUGE } from './stats-poller.ts';
import { RequestTemplate, valueSlab } from './template.ts';
import { loadTlsMaterial, tcpDialer, tlsDialer, type Dialer, type TlsMaterial } from './tls.ts';

/**
 * The `http://host:port` and `https://host:port` targets: open-loop HTTP/1.1 over a fixed pool of
 * keep-alive connections on raw node:net or node:tls sockets (tls.ts dials them). Why not undici or autocannon: both read and write through their own
 * request objects and promises/callbacks per request, and autocannon paces a closed loop (a
 * connection sends its next request when the previous answered), which hides a stalled target.
 * Here a request is a slot number and a string (or a buffer serialized once), written at its
 * intended time; the response parser only finds the status and where the response ends.
 * With `http.http2` the same pacer drives node:http2 streams instead (h2-transport.ts).
 */
export function createHttpDriver(target: HttpTarget, options: DriverOptions = {}): Driver {
  return {
    target: target.text,
    run: (context) => runHttp(context, target, intervalOf(context), options),
  };
}

async function runHttp(context: RunContext, target: HttpTarget, intervalUs: number, options: DriverOptions): Promise<DriverReport> {
  const { url } = target;
  const settings = context.profile.http;
  // Before any socket: a TLS file that cannot be read is bad input (exit 2), not a failed run.
  const tls = loadTlsMaterial(target, context.profile);
  const run = new OpenLoopRun(context, { ...openLoopOptions(target, settings, options), prime: () => primeOpenLoop(context) });
  const stats =
    settings.statsPath === undefined || options.pollTargetStats === false
      ? undefined
      : new StatsPoller(new URL(settings.statsPath, url), Math.max(100, intervalUs / 2000), tls?.options);
  const transport = settings.http2 ? new H2Transport(run, context.profile, target, tls, stats) : new HttpTransport(run, context.profile, settings, target, tls, stats);
  stats?.start();
  const report = await run.execute(transport, context.signal);
  if (!stats) return report;
  return { ...report, gauges: [...report.gauges, TARGET_STAT_GAUGE], targetStats: ((await stats.stop()) ?? null) as Record<string, unknown> | null };
}

class HttpTransport implements Transport, ConnectionOwner {
  private readonly connections: HttpConnection[];
  private readonly templates: RequestTemplate[];
  /** The serialized request per in-flight slot, held until written. */
  private readonly payload: (string | Buffer | undefined)[];
  private readonly slotKindIsHead: Uint8Array;
  /** Requests waiting for a free pipeline slot, FIFO ring of slots. */
  private readonly backlog: Int32Array;
  private backlogHead = 0;
  private backlogCount = 0;
  private readonly picker: ConnectionPicker<HttpConnection>;
  private readonly outcomes: HttpOutcomes;
  private readonly dialer: Dialer;
  private readonly timeoutUs: number;
  private connectionWaits = 0;
  private readonly connectionGauges = new ConnectionGauges();

  constructor(
    private readonly run: TransportRun,
    profile: Profile,
    settings: HttpSettings,
    target: HttpTarget,
    private readonly tls: TlsMaterial | undefined,
    private readonly stats: StatsPoller | undefined,
  ) {
    const plan = run.schedule.plan;
    const { host, port, url } = target;
    const slab = valueSlab(maxValueBytes(profile));
    const names = { clients: plan.clients.map((c) => c.name), kinds: plan.kinds };
    this.templates = plan.kinds.map((kind) => {
      const spec = settings.requests[kind] ?? settings.requests.default;
      return new RequestTemplate(spec, url.host, plan.keyspace, names, slab);
    });
    const cap = run.inFlightCap;
    this.payload = new Array(cap).fill(undefined);
    this.slotKindIsHead = new Uint8Array(cap);
    this.backlog = new Int32Array(cap);
    this.timeoutUs = settings.timeout;
    const isHead = (slot: number) => this.slotKindIsHead[slot] === 1;
    this.dialer = tls ? tlsDialer(host, port, tls) : tcpDialer(host, port);
    this.connections = Array.from({ length: settings.connections }, () => new HttpConnection(this.dialer, settings.pipelining, this, isHead));
    this.picker = new ConnectionPicker(this.connections);
    this.outcomes = new HttpOutcomes(run);
  }

  async prepare(): Promise<void> {
    try {
      await dialBeforeStart(this.connections);
    } catch (error) {
      throw withDialFailure(error, this.dialer.lastError);
    }
  }

  /**
   * A wake-up's requests go to one connection while it has pipeline room, so they leave in one
   * write (one syscall) instead of one each; the next wake-up starts on the next connection.
   */
  beginBatch(): void {
    this.picker.beginBatch();
  }

  submit(slot: number, request: ScheduledRequest): void {
    const template = this.templates[request.kind]!;
    this.slotKindIsHead[slot] = template.isHead ? 1 : 0;
    const bytes = template.serialize(request);
    const connection = this.picker.withRoom();
    if (connection) {
      if (connection.write(slot, bytes)) this.run.markSent(slot, this.run.nowUs());
    } else {
      this.payload[slot] = bytes;
      this.backlog[(this.backlogHead + this.backlogCount) % this.backlog.length] = slot;
      this.backlogCount++;
      this.connectionWaits++;
    }
  }

  wired(_connection: HttpConnection, slot: number): void {
    this.run.markSent(slot, this.run.nowUs());
  }

  responded(_connection: HttpConnection, slot: number, status: number): void {
    this.outcomes.responded(slot, status);
  }

  failed(_connection: HttpConnection, slot: number, cause: string): void {
    this.outcomes.failed(slot, cause);
  }

  /** A pipeline slot opened: move waiting requests onto it, oldest first. */
  freed(connection: HttpConnection): void {
    while (this.backlogCount > 0 && connection.hasRoom) {
      const slot = this.backlog[this.backlogHead]!;
      this.backlogHead = (this.backlogHead + 1) % this.backlog.length;
      this.backlogCount--;
      const bytes = this.payload[slot]!;
      this.payload[slot] = undefined;
      if (connection.write(slot, bytes)) this.run.markSent(slot, this.run.nowUs());
    }
  }

  tick(nowUs: number): void {
    for (const c of this.connections) {
      const oldest = c.oldest;
      if (oldest >= 0 && nowUs - this.run.waitingSinceUs(oldest) > this.timeoutUs) c.abort('timeout');
    }
    // A backlog with every connection closed (all failed at once) restarts here.
    if (this.backlogCount > 0) for (const c of this.connections) this.freed(c);
  }

  close(reason: number): void {
    const now = this.run.nowUs();
    while (this.backlogCount > 0) {
      const slot = this.backlog[this.backlogHead]!;
      this.backlogHead = (this.backlogHead + 1) % this.backlog.length;
      this.backlogCount--;
      this.payload[slot] = undefined;
      this.run.complete(slot, reason, now);
    }
    // Requests still on a connection end as `unfinished`, not as the socket error the abort causes.
    for (const c of this.connections) {
      while (c.oldest >= 0) {
        this.run.complete(c.oldest, reason, now);
        c.dropOldest();
      }
      c.abort('closed');
    }
  }

  gauges(into: Record<string, number>): void {
    this.connectionGauges.write(into, this.connections, this.backlogCount);
    this.stats?.gauges(into);
  }

  get gaugeSpecs(): readonly GaugeSpec[] {
    return this.connectionGauges.specs;
  }

  report(): HttpTransportReport {
    return httpTransportReport(this.connections, this.outcomes, this.tls);
  }

  waitedForConnection(): number {
    return this.connectionWaits;
  }
}

/** The recorder's interval when it is the RunRecorder (stats are polled twice per interval), else 1 s. */
function intervalOf(context: RunContext): number {
  const us = (context.recorder as { intervalUs?: unknown }).intervalUs;
  return typeof us === 'number' && us > 0 ? us : 1_000_000;
}
