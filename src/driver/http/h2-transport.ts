import type { HttpTarget } from '../../profile/protocols/http/spec.ts';
import type { Profile } from '../../profile/types.ts';
import type { HttpTransportReport } from '../../recorder/driver-report.ts';
import type { ScheduledRequest } from '../../schedule/types.ts';
import type { TransportRun } from '../transport.ts';
import { H2Connection, type H2ConnectionOwner } from './h2-connection.ts';
import type { H2Session } from './h2-session.ts';
import { H2RequestTemplate } from './h2-template.ts';
import { maxValueBytes } from './http-common.ts';
import { HttpPoolTransport } from './pool-transport.ts';
import type { StatsPoller } from './stats-poller.ts';
import { valueSlab } from './template.ts';
import type { TlsMaterial } from './tls.ts';

/**
 * Open-loop HTTP/2 (`http.http2`): h2 over TLS, negotiated by ALPN, for https://; h2c with prior
 * knowledge for http://, framed by h2-session.ts on the same raw sockets as HTTP/1.1. The in-flight unit is a stream: each of `connections` sessions carries up
 * to `pipelining` streams (fewer if the server says so), answered in any order, so a slow response
 * holds up no other. A request due while every session is full waits in a FIFO backlog, counted
 * as waiting for a connection, exactly as with HTTP/1.1. A stream that times out is cancelled
 * alone (RST_STREAM); the session and its other streams carry on.
 */
export class H2Transport extends HttpPoolTransport<H2Connection> implements H2ConnectionOwner {
  private readonly templates: H2RequestTemplate[];
  /** Per slot: its stream's session (undefined when none), stream id, connection, status so far, and the request's path and body until it starts. */
  private readonly sessionOf: (H2Session | undefined)[];
  private readonly streamOf: Int32Array;
  private readonly connectionOf: Int32Array;
  private readonly statusOf: Int32Array;
  private readonly pathOf: string[];
  private readonly bodyOf: (Buffer | undefined)[];
  /** Slots with an open stream, densely packed (swap-remove), for the timeout scan. */
  private readonly open: Int32Array;
  private readonly openIndex: Int32Array;
  private openCount = 0;

  constructor(run: TransportRun, profile: Profile, target: HttpTarget, tls: TlsMaterial | undefined, stats: StatsPoller | undefined) {
    const settings = profile.http;
    super(run, target, settings, ['h2'], tls, stats);
    const plan = run.schedule.plan;
    const source = { keyspace: plan.keyspace, names: { clients: plan.clients.map((c) => c.name), kinds: plan.kinds }, valueSlab: valueSlab(maxValueBytes(profile)) };
    this.templates = plan.kinds.map((kind) => new H2RequestTemplate(settings.requests[kind] ?? settings.requests.default, target.tls, source));
    const cap = run.inFlightCap;
    this.sessionOf = new Array(cap).fill(undefined);
    this.streamOf = new Int32Array(cap);
    this.connectionOf = new Int32Array(cap);
    this.statusOf = new Int32Array(cap);
    this.pathOf = new Array(cap).fill('');
    this.bodyOf = new Array(cap).fill(undefined);
    this.open = new Int32Array(cap);
    this.openIndex = new Int32Array(cap);
    for (let i = 0; i < settings.connections; i++) this.connections.push(new H2Connection(i, this.dialer, target.url.host, settings.pipelining, this, this.statusOf));
  }

  protected hold(slot: number, request: ScheduledRequest): void {
    const template = this.templates[request.kind]!;
    this.pathOf[slot] = template.path(request);
    this.bodyOf[slot] = template.body(request);
  }

  /** Opens slot's stream on `connection` (the caller checked `hasRoom`). */
  protected start(connection: H2Connection, slot: number): void {
    const template = this.templates[this.run.kind[slot]!]!;
    const session = connection.open();
    this.streamOf[slot] = session.request(slot, template.pseudo, this.pathOf[slot]!, template.fields, this.bodyOf[slot]);
    this.forget(slot);
    this.sessionOf[slot] = session;
    this.connectionOf[slot] = connection.index;
    this.openIndex[slot] = this.openCount;
    this.open[this.openCount++] = slot;
    if (connection.connected) this.run.markSent(slot, this.run.nowUs());
  }

  protected forget(slot: number): void {
    this.pathOf[slot] = '';
    this.bodyOf[slot] = undefined;
  }

  responded(slot: number, status: number): void {
    const connection = this.settle(slot);
    this.outcomes.responded(slot, status);
    this.freed(connection);
  }

  failed(slot: number, cause: string): void {
    const connection = this.settle(slot);
    this.outcomes.failed(slot, cause);
    this.freed(connection);
  }

  sessionReady(connection: H2Connection, session: H2Session): void {
    const sent = this.run.sentAtUs;
    for (let i = 0; i < this.openCount; i++) {
      const slot = this.open[i]!;
      if (this.sessionOf[slot] === session && sent[slot]! < 0) this.run.markSent(slot, this.run.nowUs());
    }
    this.freed(connection);
  }

  sessionGone(connection: H2Connection): void {
    this.freed(connection);
  }

  /** Forgets slot's stream; returns the connection it was on. */
  private settle(slot: number): H2Connection {
    this.sessionOf[slot] = undefined;
    const connection = this.connections[this.connectionOf[slot]!]!;
    const at = this.openIndex[slot]!;
    const last = this.open[--this.openCount]!;
    this.open[at] = last;
    this.openIndex[last] = at;
    return connection;
  }

  /** A stream that timed out is cancelled alone; its session and the other streams carry on. */
  protected expire(nowUs: number): void {
    // Backwards: settle moves the last open slot into the place of the one removed.
    for (let i = this.openCount - 1; i >= 0; i--) {
      if (i >= this.openCount) continue;
      const slot = this.open[i]!;
      if (nowUs - this.run.waitingSinceUs(slot) <= this.timeoutUs) continue;
      const session = this.sessionOf[slot]!;
      const connection = this.settle(slot);
      session.cancel(this.streamOf[slot]!);
      this.outcomes.failed(slot, 'timeout');
      this.freed(connection);
    }
  }

  protected closeConnections(reason: number, nowUs: number): void {
    // Streams still open end as `unfinished`, not as the cancellation closing them causes.
    while (this.openCount > 0) {
      const slot = this.open[this.openCount - 1]!;
      this.settle(slot);
      this.run.complete(slot, reason, nowUs);
    }
    for (const c of this.connections) c.destroy();
  }

  override report(): HttpTransportReport {
    const advertised = this.connections.map((c) => c.serverMaxStreams).filter((n) => n !== undefined);
    return { ...super.report(), http2: { serverMaxConcurrentStreams: advertised.length > 0 ? Math.min(...advertised) : null } };
  }
}
