import { connect, type ClientHttp2Session, type SecureClientSessionOptions, type Settings } from 'node:http2';
import { describeError } from './tls.ts';

/** What an HTTP/2 connection reports to its transport. */
export interface H2ConnectionOwner {
  /** The session is up: streams opened while it connected are on the wire now. */
  sessionReady(connection: H2Connection): void;
  /** The session ended: its open streams fail with `cause` (an error code, or "closed"). */
  sessionClosed(connection: H2Connection, cause: string): void;
  /** The server sent GOAWAY: the session finishes its streams, and the next stream dials a new one. */
  sessionRetired(connection: H2Connection): void;
  /** A dial or session failure, "CODE: message", kept for a run that could not start. */
  sessionFailed(description: string): void;
}

/** Error codes of a server that broke HTTP/2 itself (bad frames, a bad preface), as opposed to a lost socket. */
const PROTOCOL_ERRORS = new Set(['ERR_HTTP2_ERROR', 'ERR_HTTP2_SESSION_ERROR', 'ERR_HTTP2_INVALID_SETTING_VALUE', 'ERR_HTTP2_TOO_MANY_INVALID_FRAMES']);

/**
 * One HTTP/2 session (one socket) carrying up to `maxStreams` concurrent streams: the profile's
 * `pipelining`, lowered to the server's SETTINGS_MAX_CONCURRENT_STREAMS once it is known. After a
 * GOAWAY (a server that limits requests per connection, or is shutting down) the session is
 * retired: its open streams finish on it (or fail on their own), and the next stream dials a new
 * session at once rather than waiting for the old socket to close, which a server may never do.
 */
export class H2Connection {
  session: ClientHttp2Session | undefined;
  connected = false;
  /** Streams open on the session. */
  active = 0;
  /** Sessions opened over the run (reconnects included); also which session a stream is on. */
  connects = 0;
  /** Sessions ended because the server broke the protocol. */
  protocolErrors = 0;
  maxStreams: number;
  /** The server's SETTINGS_MAX_CONCURRENT_STREAMS, once received. */
  serverMaxStreams: number | undefined;
  private failure: string | undefined;
  /** Sessions retired by GOAWAY whose streams may still be open; destroyed when the run ends. */
  private readonly retired = new Set<ClientHttp2Session>();

  constructor(
    readonly index: number,
    private readonly authority: string,
    private readonly options: SecureClientSessionOptions,
    readonly depth: number,
    private readonly owner: H2ConnectionOwner,
  ) {
    this.maxStreams = depth;
  }

  get hasRoom(): boolean {
    return this.active < this.maxStreams;
  }

  /** The session, dialing one if there is none. */
  open(): ClientHttp2Session {
    if (this.session) return this.session;
    const session = connect(this.authority, this.options);
    this.session = session;
    this.connects++;
    this.maxStreams = this.depth;
    this.failure = undefined;
    session.on('connect', () => {
      if (this.session !== session) return;
      this.connected = true;
      this.owner.sessionReady(this);
    });
    session.on('remoteSettings', (settings: Settings) => {
      if (this.session !== session || settings.maxConcurrentStreams === undefined) return;
      this.serverMaxStreams = settings.maxConcurrentStreams;
      this.maxStreams = Math.max(1, Math.min(this.depth, settings.maxConcurrentStreams));
    });
    session.on('goaway', () => {
      if (this.session !== session) return;
      this.detach();
      this.retired.add(session);
      session.once('close', () => this.retired.delete(session));
      this.owner.sessionRetired(this);
    });
    session.on('error', (error: NodeJS.ErrnoException) => {
      if (this.session !== session) return;
      this.failure = error.code ?? 'socket_error';
      if (PROTOCOL_ERRORS.has(this.failure)) this.protocolErrors++;
      this.owner.sessionFailed(describeError(error));
    });
    session.on('close', () => {
      if (this.session !== session) return;
      this.detach();
      this.owner.sessionClosed(this, this.failure ?? 'closed');
    });
    return session;
  }

  /** Dials now (before the run's clock starts); resolves when connected or failed, never rejects. */
  preconnect(): Promise<void> {
    const session = this.open();
    return new Promise((resolve) => {
      if (this.connected) return resolve();
      session.once('connect', () => resolve());
      session.once('close', () => resolve());
    });
  }

  /** Drops the sessions without reporting (the run is over, its streams already completed). */
  destroy(): void {
    const session = this.session;
    this.detach();
    session?.destroy();
    for (const old of this.retired) old.destroy();
    this.retired.clear();
  }

  private detach(): void {
    this.session = undefined;
    this.connected = false;
  }
}
