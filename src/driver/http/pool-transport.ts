import type { HttpTarget } from '../../profile/protocols/http/spec.ts';
import type { HttpTransportReport } from '../../recorder/driver-report.ts';
import type { GaugeSpec } from '../../recorder/gauges.ts';
import type { ScheduledRequest } from '../../schedule/types.ts';
import { dialBeforeStart } from '../start-barrier.ts';
import type { Transport, TransportRun } from '../transport.ts';
import { ConnectionGauges, ConnectionPicker, httpTransportReport } from './http-common.ts';
import { HttpOutcomes, withDialFailure } from './outcomes.ts';
import type { StatsPoller } from './stats-poller.ts';
import { tcpDialer, tlsDialer, type Dialer, type TlsMaterial } from './tls.ts';

/** A connection of the pool, as the shared transport sees it (HttpConnection, H2Connection). */
export interface PoolConnection {
  /** It can take one more request now (a pipeline or stream slot is free). */
  readonly hasRoom: boolean;
  readonly connected: boolean;
  /** Sockets opened over the run (reconnects included). */
  readonly connects: number;
  readonly protocolErrors: number;
  /** Requests it carries at once, as the profile asks (`pipelining`). */
  readonly depth: number;
  /** Dials now (before the run's clock starts); resolves when connected or failed, never rejects. */
  preconnect(): Promise<void>;
}

/**
 * What the HTTP/1.1 and HTTP/2 transports share: a fixed pool of connections to one target, and the
 * backlog. A due request goes to a connection with room (the one the wake-up is already writing to,
 * else the next, round robin); when every connection is full it waits in a FIFO backlog of slots,
 * counted as waiting for a connection, and goes out oldest first as soon as one has room. A
 * protocol says how a request is held while it waits, started on a connection, timed out and
 * failed at the end.
 */
export abstract class HttpPoolTransport<C extends PoolConnection> implements Transport {
  /** Filled by the protocol's constructor: a connection needs its transport as owner, which exists only after super(). */
  protected readonly connections: C[] = [];
  protected readonly outcomes: HttpOutcomes;
  protected readonly dialer: Dialer;
  protected readonly timeoutUs: number;
  private readonly picker = new ConnectionPicker(this.connections);
  /** Requests waiting for a free connection slot, FIFO ring of slots. */
  private readonly backlog: Int32Array;
  private backlogHead = 0;
  private backlogCount = 0;
  private connectionWaits = 0;
  private readonly connectionGauges = new ConnectionGauges();

  constructor(
    protected readonly run: TransportRun,
    target: HttpTarget,
    settings: { timeout: number },
    /** ALPN protocols offered over TLS. */
    alpn: string[],
    private readonly tls: TlsMaterial | undefined,
    private readonly stats: StatsPoller | undefined,
  ) {
    this.backlog = new Int32Array(run.inFlightCap);
    this.timeoutUs = settings.timeout;
    this.outcomes = new HttpOutcomes(run);
    this.dialer = tls ? tlsDialer(target.host, target.port, tls, alpn) : tcpDialer(target.host, target.port);
  }

  /** Keeps what slot's request needs on the wire until it starts (its bytes, its path and body). */
  protected abstract hold(slot: number, request: ScheduledRequest): void;
  /** Puts slot's held request on `connection`, which has room, and forgets what was held. */
  protected abstract start(connection: C, slot: number): void;
  /** Forgets what slot's request held: it ends without starting. */
  protected abstract forget(slot: number): void;
  /** Fails the requests that waited longer than the timeout on a connection. */
  protected abstract expire(nowUs: number): void;
  /** Completes every request still on a connection with `reason` (not as the closing's own error), then closes them all. */
  protected abstract closeConnections(reason: number, nowUs: number): void;

  async prepare(): Promise<void> {
    try {
      await dialBeforeStart(this.connections);
    } catch (error) {
      throw withDialFailure(error, this.dialer.lastError);
    }
  }

  /**
   * A wake-up's requests go to one connection while it has room, so they leave in one write (one
   * syscall) instead of one each; the next wake-up starts on the next connection.
   */
  beginBatch(): void {
    this.picker.beginBatch();
  }

  submit(slot: number, request: ScheduledRequest): void {
    this.hold(slot, request);
    const connection = this.picker.withRoom();
    if (connection) this.start(connection, slot);
    else {
      this.backlog[(this.backlogHead + this.backlogCount) % this.backlog.length] = slot;
      this.backlogCount++;
      this.connectionWaits++;
    }
  }

  /** `connection` has room again (an answer, a failure, a new session): waiting requests go onto it, oldest first. */
  freed(connection: C): void {
    while (this.backlogCount > 0 && connection.hasRoom) this.start(connection, this.nextWaiting());
  }

  tick(nowUs: number): void {
    this.expire(nowUs);
    // A backlog with every connection closed (all failed at once) restarts here.
    if (this.backlogCount > 0) for (const c of this.connections) this.freed(c);
  }

  close(reason: number): void {
    const now = this.run.nowUs();
    while (this.backlogCount > 0) {
      const slot = this.nextWaiting();
      this.forget(slot);
      this.run.complete(slot, reason, now);
    }
    this.closeConnections(reason, now);
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

  private nextWaiting(): number {
    const slot = this.backlog[this.backlogHead]!;
    this.backlogHead = (this.backlogHead + 1) % this.backlog.length;
    this.backlogCount--;
    return slot;
  }
}
