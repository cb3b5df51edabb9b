import type { HttpSettings } from '../../profile/protocols/http/section.ts';
import type { HttpTarget } from '../../profile/protocols/http/spec.ts';
import type { Profile } from '../../profile/types.ts';
import type { ScheduledRequest } from '../../schedule/types.ts';
import type { TransportRun } from '../transport.ts';
import { HttpConnection, type ConnectionOwner } from './connection.ts';
import { maxValueBytes } from './http-common.ts';
import { HttpPoolTransport } from './pool-transport.ts';
import type { StatsPoller } from './stats-poller.ts';
import { RequestTemplate, valueSlab } from './template.ts';
import type { TlsMaterial } from './tls.ts';

/**
 * Open-loop HTTP/1.1: each of `connections` keep-alive connections carries up to `pipelining`
 * requests, answered in order. A request is its serialized bytes, written when a connection has
 * room; a timeout fails every request on its connection (see HttpConnection).
 */
export class H1Transport extends HttpPoolTransport<HttpConnection> implements ConnectionOwner {
  private readonly templates: RequestTemplate[];
  /** The serialized request per in-flight slot, held until written. */
  private readonly payload: (string | Buffer | undefined)[];
  private readonly slotKindIsHead: Uint8Array;

  constructor(run: TransportRun, profile: Profile, settings: HttpSettings, target: HttpTarget, tls: TlsMaterial | undefined, stats: StatsPoller | undefined) {
    super(run, target, settings, ['http/1.1'], tls, stats);
    const plan = run.schedule.plan;
    const slab = valueSlab(maxValueBytes(profile));
    const names = { clients: plan.clients.map((c) => c.name), kinds: plan.kinds };
    this.templates = plan.kinds.map((kind) => {
      const spec = settings.requests[kind] ?? settings.requests.default;
      return new RequestTemplate(spec, target.url.host, plan.keyspace, names, slab);
    });
    const cap = run.inFlightCap;
    this.payload = new Array(cap).fill(undefined);
    this.slotKindIsHead = new Uint8Array(cap);
    const isHead = (slot: number) => this.slotKindIsHead[slot] === 1;
    for (let i = 0; i < settings.connections; i++) this.connections.push(new HttpConnection(this.dialer, settings.pipelining, this, isHead));
  }

  protected hold(slot: number, request: ScheduledRequest): void {
    const template = this.templates[request.kind]!;
    this.slotKindIsHead[slot] = template.isHead ? 1 : 0;
    this.payload[slot] = template.serialize(request);
  }

  protected start(connection: HttpConnection, slot: number): void {
    const bytes = this.payload[slot]!;
    this.payload[slot] = undefined;
    if (connection.write(slot, bytes)) this.run.markSent(slot, this.run.nowUs());
  }

  protected forget(slot: number): void {
    this.payload[slot] = undefined;
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

  protected expire(nowUs: number): void {
    for (const c of this.connections) {
      const oldest = c.oldest;
      if (oldest >= 0 && nowUs - this.run.waitingSinceUs(oldest) > this.timeoutUs) c.abort('timeout');
    }
  }

  protected closeConnections(reason: number, nowUs: number): void {
    for (const c of this.connections) {
      while (c.oldest >= 0) {
        this.run.complete(c.oldest, reason, nowUs);
        c.dropOldest();
      }
      c.abort('closed');
    }
  }
}
