import { nextTick } from 'node:process';
import type { Socket } from 'node:net';
import { ResponseParser, type ResponseSink } from './response-parser.ts';
import type { Dialer } from './tls.ts';

/** What a connection reports to its pool. */
export interface ConnectionOwner {
  /** Slot's request, written while the socket was still connecting, went out now that it is connected. */
  wired(connection: HttpConnection, slot: number): void;
  /** The response to the oldest request on `connection` arrived. */
  responded(connection: HttpConnection, slot: number, status: number): void;
  /** A request on the connection failed: errno code, "closed", "timeout", "protocol" or "too_large". */
  failed(connection: HttpConnection, slot: number, cause: string): void;
  /** The connection can take more requests (a response arrived, or it closed and may reconnect). */
  freed(connection: HttpConnection): void;
}

/**
 * One keep-alive HTTP/1.1 connection with up to `depth` pipelined requests. Requests are answered
 * in order, so the in-flight slots are a FIFO ring; a timeout or socket error fails every request on
 * it, because a pipelined HTTP/1.1 connection cannot skip one response. A protocol error (see
 * ResponseParser) fails the oldest request with it, closes the connection and fails the rest as
 * `closed`: after it, no response can be paired with a request.
 *
 * A request written while the socket is still connecting waits in Node's buffer; it reaches the
 * wire, and counts as sent, only when the socket connects (`wired`). If the dial fails it was never
 * sent.
 */
export class HttpConnection implements ResponseSink {
  private socket: Socket | undefined;
  private readonly ring: Int32Array;
  private head = 0;
  count = 0;
  /** Sockets opened over the run (reconnects included). */
  connects = 0;
  /** Connections closed because the server broke the protocol. */
  protocolErrors = 0;
  connected = false;
  /** The server said Connection: close; no new requests until it has closed. */
  private closing = false;
  private readonly parser = new ResponseParser(this);
  /** A response was read from the current chunk of bytes: its pipeline room is handed on after the chunk. */
  private answeredInRead = false;
  private corked = false;

  constructor(
    private readonly dialer: Dialer,
    readonly depth: number,
    private readonly owner: ConnectionOwner,
    private readonly isHead: (slot: number) => boolean,
  ) {
    this.ring = new Int32Array(depth);
  }

  get hasRoom(): boolean {
    return this.count < this.depth && !this.closing;
  }

  /** The oldest request on the connection, or −1. */
  get oldest(): number {
    return this.count > 0 ? this.ring[this.head]! : -1;
  }

  get awaitingResponse(): boolean {
    return this.count > 0;
  }

  /**
   * Writes a request; the caller checked `hasRoom`. Writes within one tick are coalesced by cork.
   * True when the socket is connected, so the bytes go out now; false when they wait for the dial.
   */
  write(slot: number, bytes: string | Buffer): boolean {
    const socket = this.socket ?? this.open();
    if (this.count === 0) this.parser.expectNoBody = this.isHead(slot);
    this.ring[(this.head + this.count) % this.depth] = slot;
    this.count++;
    // One request at a time per connection has nothing to coalesce: cork would only add a tick.
    if (this.depth > 1 && !this.corked) {
      this.corked = true;
      socket.cork();
      nextTick(uncork, this);
    }
    socket.write(bytes);
    return this.connected;
  }

  /** Dials now (before the run's clock starts); resolves when connected or failed, never rejects. */
  preconnect(): Promise<void> {
    const socket = this.socket ?? this.open();
    return new Promise((resolve) => {
      if (this.connected) return resolve();
      socket.once(this.dialer.readyEvent, () => resolve());
      socket.once('close', () => resolve());
    });
  }

  /** Forgets the oldest request (the caller has completed it); used when a run ends. */
  dropOldest(): void {
    if (this.count === 0) return;
    this.head = (this.head + 1) % this.depth;
    this.count--;
  }

  /** Fails every request on it with `cause` and drops the socket; the next write reconnects. */
  abort(cause: string): void {
    this.abortBlaming(cause, cause);
  }

  onResponse(status: number, closeAfter: boolean): void {
    const slot = this.ring[this.head]!;
    this.head = (this.head + 1) % this.depth;
    this.count--;
    if (this.count > 0) this.parser.expectNoBody = this.isHead(this.ring[this.head]!);
    if (closeAfter) this.closing = true;
    this.owner.responded(this, slot, status);
    this.answeredInRead = true;
  }

  /** `_message` says what was wrong; the outcome reason is the same for every kind of breach. */
  onProtocolError(_message: string): void {
    this.protocolErrors++;
    this.abortBlaming('protocol', 'closed');
  }

  onTooLarge(): void {
    this.abortBlaming('too_large', 'closed');
  }

  /** Drops the socket; the oldest request fails with `cause`, the others with `others`. */
  private abortBlaming(cause: string, others: string): void {
    const socket = this.socket;
    this.detach();
    socket?.destroy();
    if (this.count > 0) {
      const slot = this.ring[this.head]!;
      this.head = (this.head + 1) % this.depth;
      this.count--;
      this.owner.failed(this, slot, cause);
    }
    this.failAll(others);
  }

  private open(): Socket {
    const socket = this.dialer.dial((bytes, length) => this.read(socket, bytes, length));
    this.socket = socket;
    this.connects++;
    this.parser.reset();
    this.closing = false;
    socket.on(this.dialer.readyEvent, () => {
      if (this.socket !== socket) return;
      this.connected = true;
      for (let i = 0; i < this.count; i++) this.owner.wired(this, this.ring[(this.head + i) % this.depth]!);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (this.socket !== socket) return;
      this.detach();
      this.failAll(error.code ?? 'socket_error');
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.parser.onEnd();
      this.detach();
      this.failAll('closed');
    });
    return socket;
  }

  private read(socket: Socket, bytes: Buffer, length: number): void {
    if (this.socket !== socket) return;
    this.answeredInRead = false;
    this.parser.feed(bytes, length);
    // Waiting requests go out once the bytes that arrived are read: bytes read together cannot
    // answer a request written after them, and must not be charged to one.
    if (this.answeredInRead && this.socket === socket && !this.closing) this.owner.freed(this);
  }

  private detach(): void {
    this.socket = undefined;
    this.connected = false;
    this.closing = false;
    this.corked = false;
  }

  private failAll(cause: string): void {
    while (this.count > 0) {
      const slot = this.ring[this.head]!;
      this.head = (this.head + 1) % this.depth;
      this.count--;
      this.owner.failed(this, slot, cause);
    }
    this.head = 0;
    this.owner.freed(this);
  }

  uncork(): void {
    this.corked = false;
    this.socket?.uncork();
  }
}

function uncork(connection: HttpConnection): void {
  connection.uncork();
}
