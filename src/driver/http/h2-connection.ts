import { H2Session, type H2SessionLifecycle, type H2StreamSink } from './h2-session.ts';
import type { Dialer } from './tls.ts';

/** What an HTTP/2 connection reports to its transport. */
export interface H2ConnectionOwner extends H2StreamSink {
  /** The session is up: streams opened while it connected are on the wire now. */
  sessionReady(connection: H2Connection, session: H2Session): void;
  /** The session ended or was retired: the connection has room again (a new session dials on demand). */
  sessionGone(connection: H2Connection): void;
}

/**
 * One connection slot of the pool: its current HTTP/2 session (one socket) carrying up to
 * `maxStreams` concurrent streams — the profile's `pipelining`, lowered to the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS once it is known. After a GOAWAY (a server that limits requests
 * per connection, or is shutting down) the session is retired: its open streams finish on it (or
 * fail on their own), and the next stream dials a new session at once rather than waiting for the
 * old socket to close.
 */
export class H2Connection implements H2SessionLifecycle {
  session: H2Session | undefined;
  connected = false;
  /** Sessions opened over the run (reconnects included). */
  connects = 0;
  /** Sessions ended because the server broke the protocol. */
  protocolErrors = 0;
  maxStreams: number;
  /** The server's SETTINGS_MAX_CONCURRENT_STREAMS, once received. */
  serverMaxStreams: number | undefined;
  /** Retired sessions whose streams may still be open; destroyed when the run ends. */
  private readonly retiredSessions = new Set<H2Session>();
  /** Resolves the dial before the run: the first session's SETTINGS came, or its socket closed. */
  private onSettled: (() => void) | undefined;

  constructor(
    readonly index: number,
    private readonly dialer: Dialer,
    /** The `:authority` of every request. */
    private readonly authority: string,
    readonly depth: number,
    private readonly owner: H2ConnectionOwner,
    private readonly statusOf: Int32Array,
  ) {
    this.maxStreams = depth;
  }

  get hasRoom(): boolean {
    return this.session === undefined || this.session.openStreams < this.maxStreams;
  }

  /** The session, dialing one if there is none. */
  open(): H2Session {
    if (this.session) return this.session;
    this.connects++;
    this.maxStreams = this.depth;
    this.session = new H2Session(this.dialer.dial(), this.dialer.readyEvent, this.authority, this.owner, this, this.statusOf);
    return this.session;
  }

  /** Dials now (before the run's clock starts); resolves when the server's SETTINGS came or the socket closed, never rejects. */
  preconnect(): Promise<void> {
    this.open();
    if (this.connected) return Promise.resolve();
    return new Promise((resolve) => {
      this.onSettled = resolve;
    });
  }

  ready(session: H2Session): void {
    this.settle();
    if (session !== this.session) return;
    this.connected = true;
    this.owner.sessionReady(this, session);
  }

  limited(session: H2Session, maxStreams: number): void {
    if (session !== this.session) return;
    this.serverMaxStreams = maxStreams;
    this.maxStreams = Math.max(1, Math.min(this.depth, maxStreams));
  }

  retired(session: H2Session): void {
    if (session !== this.session) return;
    this.detach();
    this.retiredSessions.add(session);
    this.owner.sessionGone(this);
  }

  closed(session: H2Session, cause: string): void {
    this.settle();
    this.retiredSessions.delete(session);
    if (cause === 'ERR_HTTP2_ERROR') this.protocolErrors++;
    if (session !== this.session) return;
    this.detach();
    this.owner.sessionGone(this);
  }

  /** Drops the sessions without reporting (the run is over, its streams already completed). */
  destroy(): void {
    const session = this.session;
    this.detach();
    session?.destroy();
    for (const old of this.retiredSessions) old.destroy();
    this.retiredSessions.clear();
  }

  private settle(): void {
    this.onSettled?.();
    this.onSettled = undefined;
  }

  private detach(): void {
    this.session = undefined;
    this.connected = false;
  }
}
