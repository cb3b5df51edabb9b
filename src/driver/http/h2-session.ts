import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { H2BodySender } from './h2-bodies.ts';
import { H2FrameWriter } from './h2-frames.ts';
import {
  DATA,
  HEADERS,
  RST_STREAM,
  SETTINGS,
  PUSH_PROMISE,
  PING,
  GOAWAY,
  WINDOW_UPDATE,
  CONTINUATION,
  FLAG_END_STREAM,
  FLAG_ACK,
  FLAG_END_HEADERS,
  FLAG_PADDED,
  FLAG_PRIORITY,
  SETTINGS_HEADER_TABLE_SIZE,
  SETTINGS_MAX_CONCURRENT_STREAMS,
  SETTINGS_INITIAL_WINDOW_SIZE,
  SETTINGS_MAX_FRAME_SIZE,
  NO_ERROR,
  PROTOCOL_ERROR,
  CANCEL,
  COMPRESSION_ERROR,
} from './h2-protocol.ts';
import { HpackDecoder, HpackError } from './hpack.ts';

/*
 * One HTTP/2 connection (RFC 9113) spoken directly over a socket, client side, as a load generator
 * needs it: requests out, each response's status and end in, nothing else kept. node:http2 builds a
 * Duplex stream, header objects and several events per request (~60 µs of CPU each on the bench
 * machine, a fifth of what h2load reaches); here a stream is a slot number in a map, its request a
 * few bytes appended to the connection's one write per tick, its response a frame header and,
 * usually, one HPACK byte.
 */

/** What this side announces: the largest frame it reads (the default). */
const MAX_FRAME_SIZE = 16_384;
const MAX_WINDOW = 2 ** 31 - 1;
/** Client stream ids are odd and end here; a session that used them all is retired like one that got GOAWAY. */
const LAST_STREAM_ID = 2 ** 31 - 1;

/** The stream outcomes a session reports, by slot. */
export interface H2StreamSink {
  /** Slot's response ended with a final status. */
  responded(slot: number, status: number): void;
  /** Slot's stream failed: "protocol" (a malformed response), "closed", an error code. */
  failed(slot: number, cause: string): void;
}

/** What happens to the session itself. */
export interface H2SessionLifecycle {
  /** The server's first SETTINGS arrived: it is talking HTTP/2, and requests written so far are on the wire. */
  ready(session: H2Session): void;
  /** The server's SETTINGS_MAX_CONCURRENT_STREAMS. */
  limited(session: H2Session, maxStreams: number): void;
  /** GOAWAY (or stream ids used up): the session finishes its streams, new ones go elsewhere. */
  retired(session: H2Session): void;
  /** The socket is gone; every stream on it has failed with `cause` ("closed", an error code). */
  closed(session: H2Session, cause: string): void;
}

export class H2Session {
  private readonly streams = new Map<number, number>();
  private readonly decoder = new HpackDecoder();
  private readonly writer: H2FrameWriter;
  private nextStreamId = 1;
  private readonly bodies: H2BodySender;
  /** Bytes of an incomplete frame, kept until the rest arrives. */
  private partial: Buffer | undefined;
  /** A header block split over CONTINUATION frames, while it is incomplete. */
  private blockParts: Buffer[] = [];
  private blockStream = 0;
  private blockEndsStream = false;
  private unacknowledged = 0;
  private settled = false;
  private isRetired = false;
  private failure: string | undefined;

  constructor(
    private readonly socket: Socket,
    readyEvent: 'connect' | 'secureConnect',
    authority: string,
    private readonly sink: H2StreamSink,
    private readonly lifecycle: H2SessionLifecycle,
    /** Per slot: the final status received so far (0: none yet). */
    private readonly statusOf: Int32Array,
  ) {
    this.writer = new H2FrameWriter(socket, authority);
    this.bodies = new H2BodySender(this.writer);
    this.writer.preface(MAX_WINDOW);
    socket.on(readyEvent, () => this.onConnected(readyEvent === 'secureConnect'));
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.failure ??= error.code ?? 'socket_error';
    });
    socket.on('close', () => this.onClose());
  }

  get openStreams(): number {
    return this.streams.size;
  }

  get retired(): boolean {
    return this.isRetired;
  }

  /**
   * Opens a stream for slot with the header block `pseudo` + `:path` + `fields` and its body;
   * returns the stream id. The frames go out with everything else written this tick.
   */
  request(slot: number, pseudo: Buffer, path: string, fields: Buffer, body: Buffer | undefined): number {
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    this.streams.set(id, slot);
    this.statusOf[slot] = 0;
    this.writer.headers(id, pseudo, path, fields, body === undefined);
    if (body !== undefined) this.bodies.send(id, body);
    if (this.nextStreamId > LAST_STREAM_ID) this.retire();
    return id;
  }

  /** Cancels one stream (RST_STREAM CANCEL); the others carry on. */
  cancel(id: number): void {
    if (!this.streams.delete(id)) return;
    this.bodies.drop(id);
    this.writer.rstStream(id, CANCEL);
    this.afterStreamClosed();
  }

  /** Drops the socket without reporting its streams (the run is over: they are completed already). */
  destroy(): void {
    this.streams.clear();
    this.socket.destroy();
  }

  private onConnected(tls: boolean): void {
    if (tls && (this.socket as TLSSocket).alpnProtocol !== 'h2') {
      const error: NodeJS.ErrnoException = new Error('the server did not select h2 by ALPN');
      error.code = 'ERR_TLS_NO_APPLICATION_PROTOCOL';
      this.socket.destroy(error);
      return;
    }
    this.writer.connected = true;
    this.writer.flushNow();
  }

  private onData(chunk: Buffer): void {
    let bytes = chunk;
    if (this.partial !== undefined) {
      bytes = Buffer.concat([this.partial, chunk]);
      this.partial = undefined;
    }
    let at = 0;
    const end = bytes.length;
    while (end - at >= 9) {
      const length = (bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!;
      if (length > MAX_FRAME_SIZE) {
        this.connectionError('a frame larger than SETTINGS_MAX_FRAME_SIZE');
        return;
      }
      if (end - at - 9 < length) break;
      const type = bytes[at + 3]!;
      const flags = bytes[at + 4]!;
      const id = bytes.readUInt32BE(at + 5) & 0x7fffffff;
      if (!this.frame(type, flags, id, bytes, at + 9, at + 9 + length) || this.socket.destroyed) return;
      at += 9 + length;
    }
    if (at < end) this.partial = bytes.subarray(at);
  }

  /** One frame, payload [from, to); false when the session failed on it. */
  private frame(type: number, flags: number, id: number, bytes: Buffer, from: number, to: number): boolean {
    if (this.blockStream !== 0 && type !== CONTINUATION) return this.connectionError('a header block interrupted');
    switch (type) {
      case DATA:
        return this.onDataFrame(flags, id, bytes, from, to);
      case HEADERS:
        return this.onHeaders(flags, id, bytes, from, to);
      case CONTINUATION:
        return this.onContinuation(flags, id, bytes, from, to);
      case RST_STREAM:
        if (to - from !== 4) return this.connectionError('RST_STREAM of the wrong size');
        this.onReset(id, bytes.readUInt32BE(from));
        return true;
      case SETTINGS:
        return flags & FLAG_ACK ? true : this.onSettings(bytes, from, to);
      case PING:
        if (to - from !== 8) return this.connectionError('PING of the wrong size');
        if (!(flags & FLAG_ACK)) this.writer.pingAck(bytes, from);
        return true;
      case GOAWAY:
        if (to - from < 8) return this.connectionError('GOAWAY too short');
        this.onGoaway(bytes.readUInt32BE(from) & 0x7fffffff);
        return true;
      case WINDOW_UPDATE:
        if (to - from !== 4) return this.connectionError('WINDOW_UPDATE of the wrong size');
        this.bodies.windowUpdate(id, bytes.readUInt32BE(from) & 0x7fffffff);
        return true;
      case PUSH_PROMISE:
        return this.connectionError('PUSH_PROMISE after SETTINGS_ENABLE_PUSH 0');
      default:
        // PRIORITY and unknown types carry nothing a load generator needs.
        return true;
    }
  }

  private onDataFrame(flags: number, id: number, bytes: Buffer, from: number, to: number): boolean {
    // Flow control counts the whole payload, padding included; the body itself is dropped.
    this.unacknowledged += to - from;
    if (this.unacknowledged >= MAX_WINDOW / 2) {
      this.writer.windowUpdate(0, this.unacknowledged);
      this.unacknowledged = 0;
    }
    if (flags & FLAG_PADDED && (to === from || bytes[from]! >= to - from)) return this.connectionError('DATA padding past its frame');
    if (flags & FLAG_END_STREAM) this.endStream(id);
    return true;
  }

  private onHeaders(flags: number, id: number, bytes: Buffer, from: number, to: number): boolean {
    let start = from;
    let end = to;
    if (flags & FLAG_PADDED) {
      const padding = bytes[start++]!;
      end -= padding;
    }
    if (flags & FLAG_PRIORITY) start += 5;
    if (id === 0 || start > end) return this.connectionError('a malformed HEADERS frame');
    if (flags & FLAG_END_HEADERS) return this.onHeaderBlock(id, flags & FLAG_END_STREAM, bytes, start, end);
    this.blockStream = id;
    this.blockEndsStream = (flags & FLAG_END_STREAM) !== 0;
    this.blockParts = [Buffer.from(bytes.subarray(start, end))];
    return true;
  }

  private onContinuation(flags: number, id: number, bytes: Buffer, from: number, to: number): boolean {
    if (id === 0 || id !== this.blockStream) return this.connectionError('CONTINUATION without its HEADERS');
    this.blockParts.push(Buffer.from(bytes.subarray(from, to)));
    if (!(flags & FLAG_END_HEADERS)) return true;
    const block = Buffer.concat(this.blockParts);
    this.blockParts = [];
    this.blockStream = 0;
    return this.onHeaderBlock(id, this.blockEndsStream ? FLAG_END_STREAM : 0, block, 0, block.length);
  }

  /** A complete header block: decoded whatever the stream (the table is the connection's), kept if it is ours. */
  private onHeaderBlock(id: number, endStream: number, block: Buffer, from: number, to: number): boolean {
    let status: number;
    try {
      status = this.decoder.status(block, from, to);
    } catch (error) {
      if (!(error instanceof HpackError)) throw error;
      return this.connectionError(`HPACK: ${error.message}`, COMPRESSION_ERROR);
    }
    const slot = this.streams.get(id);
    if (slot === undefined) return true;
    const sofar = this.statusOf[slot]!;
    // Final headers are three digits; informational (1xx) ones come before them; trailers have no status.
    const malformed = status < 0 || (status === 0 && sofar === 0) || (status > 0 && sofar > 0) || (status > 0 && status < 200 && endStream !== 0);
    if (malformed) {
      this.streams.delete(id);
      this.writer.rstStream(id, PROTOCOL_ERROR);
      this.sink.failed(slot, 'protocol');
      this.afterStreamClosed();
      return true;
    }
    if (status >= 200) this.statusOf[slot] = status;
    if (endStream) this.endStream(id);
    return true;
  }

  private endStream(id: number): void {
    const slot = this.streams.get(id);
    if (slot === undefined) return;
    this.streams.delete(id);
    const status = this.statusOf[slot]!;
    if (status >= 200) this.sink.responded(slot, status);
    else this.sink.failed(slot, 'protocol');
    this.afterStreamClosed();
  }

  private onReset(id: number, code: number): void {
    const slot = this.streams.get(id);
    if (slot === undefined) return;
    this.streams.delete(id);
    this.bodies.drop(id);
    this.sink.failed(slot, code === NO_ERROR ? 'closed' : 'ERR_HTTP2_STREAM_ERROR');
    this.afterStreamClosed();
  }

  private onSettings(bytes: Buffer, from: number, to: number): boolean {
    if ((to - from) % 6 !== 0) return this.connectionError('SETTINGS of the wrong size');
    for (let at = from; at < to; at += 6) {
      const key = bytes.readUInt16BE(at);
      const value = bytes.readUInt32BE(at + 2);
      if (key === SETTINGS_MAX_CONCURRENT_STREAMS) this.lifecycle.limited(this, value);
      else if (key === SETTINGS_MAX_FRAME_SIZE) this.writer.maxFrameSize = value;
      else if (key === SETTINGS_HEADER_TABLE_SIZE) this.writer.headerTableSize = value;
      else if (key === SETTINGS_INITIAL_WINDOW_SIZE) this.bodies.initialWindow = value;
    }
    this.writer.settingsAck();
    if (!this.settled) {
      this.settled = true;
      this.lifecycle.ready(this);
    }
    return true;
  }

  /** Streams the server did not take (above its last id) were refused: they fail as reset, the rest finish here. */
  private onGoaway(lastStreamId: number): void {
    for (const [id, slot] of this.streams) {
      if (id <= lastStreamId) continue;
      this.streams.delete(id);
      this.bodies.drop(id);
      this.sink.failed(slot, 'ERR_HTTP2_STREAM_ERROR');
    }
    this.retire();
    this.afterStreamClosed();
  }

  private retire(): void {
    if (this.isRetired) return;
    this.isRetired = true;
    this.lifecycle.retired(this);
  }

  /** A retired session closes once its last stream is done. */
  private afterStreamClosed(): void {
    if (this.isRetired && this.streams.size === 0) {
      this.writer.flushNow();
      this.socket.end();
    }
  }

  /** The server broke HTTP/2: GOAWAY with the error, then the socket goes; its streams fail as protocol errors. */
  private connectionError(message: string, code = PROTOCOL_ERROR): false {
    this.failure = 'ERR_HTTP2_ERROR';
    // The last stream id in a client's GOAWAY is the server's: it has opened none.
    this.writer.goaway(0, code);
    this.writer.flushNow();
    const error: NodeJS.ErrnoException = new Error(message);
    error.code = 'ERR_HTTP2_ERROR';
    this.socket.destroy(error);
    return false;
  }

  /** The connection lets the session go first, so a stream failing here cannot start a new one on it. */
  private onClose(): void {
    const cause = this.failure ?? 'closed';
    const streams = [...this.streams.values()];
    this.streams.clear();
    this.bodies.clear();
    this.lifecycle.closed(this, cause);
    for (const slot of streams) this.sink.failed(slot, cause);
  }
}
