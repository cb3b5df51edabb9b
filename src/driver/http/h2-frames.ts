import type { Socket } from 'node:net';
import { nextTick } from 'node:process';
import {
  DATA,
  HEADERS,
  RST_STREAM,
  SETTINGS,
  PING,
  GOAWAY,
  WINDOW_UPDATE,
  CONTINUATION,
  FLAG_END_STREAM,
  FLAG_ACK,
  FLAG_END_HEADERS,
  SETTINGS_ENABLE_PUSH,
  SETTINGS_INITIAL_WINDOW_SIZE,
} from './h2-protocol.ts';
import { hpackInteger, literalField, STATIC_INDEX } from './hpack.ts';

const DEFAULT_WINDOW = 65_535;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** `:path` as a literal without indexing, its name the static table's index 4. */
const PATH_LITERAL = 0x04;
/** The indexed field `:path: /`. */
const PATH_ROOT = 0x84;
/** The dynamic table's newest entry: `:authority`, the one field this side ever indexes. */
const AUTHORITY_INDEXED = Buffer.from([0xbe]);
/** A dynamic table size update to 0 (§6.3): the server lowered the table below the default, so nothing is indexed from then on. */
const TABLE_SIZE_ZERO = 0x20;
const DEFAULT_TABLE_SIZE = 4096;

/**
 * The frames an HTTP/2 client writes, appended to one buffer and written to the socket once per
 * tick: a pacer wake-up's requests on a connection leave in one write, as with HTTP/1.1 pipelining.
 */
export class H2FrameWriter {
  private out = Buffer.allocUnsafe(64 * 1024);
  private length = 0;
  private scheduled = false;
  /** The server's SETTINGS_MAX_FRAME_SIZE: the largest frame it reads. */
  maxFrameSize = 16_384;
  /**
   * Bytes wait here until the socket is connected (the TLS handshake done): a write during the
   * handshake would turn the server's alert into the write's EPROTO instead of its own code.
   */
  connected = false;
  /**
   * `:authority` is the same in every request of a session: the first sends it "with incremental
   * indexing", the rest as one byte (as h2load does; a literal each time cost the server ~40% more
   * CPU per request than h2load's). Literal only, after the server shrank its table.
   */
  private authorityState: 'first' | 'indexed' | 'literal' = 'first';
  private tableSizeUpdate = false;
  private readonly authorityIndexing: Buffer;
  private readonly authorityLiteral: Buffer;

  constructor(
    private readonly socket: Socket,
    authority: string,
  ) {
    const literal = literalField(STATIC_INDEX.authority, ':authority', authority);
    this.authorityLiteral = literal;
    this.authorityIndexing = Buffer.concat([Buffer.from(hpackInteger(STATIC_INDEX.authority, 6, 0x40)), literal.subarray(1)]);
  }

  /** The server's SETTINGS_HEADER_TABLE_SIZE: below the default, the next block empties the table and nothing is indexed again. */
  set headerTableSize(size: number) {
    if (size >= DEFAULT_TABLE_SIZE || this.authorityState === 'literal') return;
    this.authorityState = 'literal';
    this.tableSizeUpdate = true;
  }

  /** The connection preface: the magic, SETTINGS (no push; `window` per stream) and the connection window raised to match. */
  preface(window: number): void {
    this.append(PREFACE, 0, PREFACE.length);
    this.header(12, SETTINGS, 0, 0);
    this.setting(SETTINGS_ENABLE_PUSH, 0);
    this.setting(SETTINGS_INITIAL_WINDOW_SIZE, window);
    this.windowUpdate(0, window - DEFAULT_WINDOW);
  }

  /** A request's header block (`pseudo`, `:authority`, `:path`, `fields`) in HEADERS, and CONTINUATION past the server's frame size. */
  headers(id: number, pseudo: Buffer, path: string, fields: Buffer, endStream: boolean): void {
    const sizeUpdate = this.tableSizeUpdate ? 1 : 0;
    this.tableSizeUpdate = false;
    const authority = this.authorityField();
    const pathBytes = path === '/' ? 0 : Buffer.byteLength(path);
    const pathField = path === '/' ? 1 : 1 + integerLength(pathBytes) + pathBytes;
    const size = sizeUpdate + pseudo.length + authority.length + pathField + fields.length;
    const flags = endStream ? FLAG_END_STREAM : 0;
    if (size > this.maxFrameSize) {
      const head = sizeUpdate ? Buffer.from([TABLE_SIZE_ZERO]) : Buffer.alloc(0);
      return this.splitHeaders(id, Buffer.concat([head, pseudo, authority, pathFieldBytes(path), fields]), flags);
    }
    this.header(size, HEADERS, flags | FLAG_END_HEADERS, id);
    if (sizeUpdate) this.out[this.length++] = TABLE_SIZE_ZERO;
    this.append(pseudo, 0, pseudo.length);
    this.append(authority, 0, authority.length);
    if (path === '/') this.out[this.length++] = PATH_ROOT;
    else {
      this.out[this.length++] = PATH_LITERAL;
      this.integer(pathBytes);
      this.length += this.out.write(path, this.length, 'utf8');
    }
    this.append(fields, 0, fields.length);
  }

  private authorityField(): Buffer {
    if (this.authorityState === 'indexed') return AUTHORITY_INDEXED;
    if (this.authorityState === 'literal') return this.authorityLiteral;
    this.authorityState = 'indexed';
    return this.authorityIndexing;
  }

  data(id: number, body: Buffer, from: number, to: number, endStream: boolean): void {
    this.header(to - from, DATA, endStream ? FLAG_END_STREAM : 0, id);
    this.append(body, from, to);
  }

  rstStream(id: number, code: number): void {
    this.header(4, RST_STREAM, 0, id);
    this.uint32(code);
  }

  settingsAck(): void {
    this.header(0, SETTINGS, FLAG_ACK, 0);
  }

  pingAck(bytes: Buffer, from: number): void {
    this.header(8, PING, FLAG_ACK, 0);
    this.append(bytes, from, from + 8);
  }

  goaway(lastStreamId: number, code: number): void {
    this.header(8, GOAWAY, 0, 0);
    this.uint32(lastStreamId);
    this.uint32(code);
  }

  windowUpdate(id: number, increment: number): void {
    this.header(4, WINDOW_UPDATE, 0, id);
    this.uint32(increment);
  }

  /** Writes what is buffered now (before the socket is ended or destroyed). */
  flushNow(): void {
    if (this.length === 0 || !this.connected) return;
    // A copy: the socket may hold the bytes until they are sent, and the buffer is reused.
    const bytes = Buffer.allocUnsafe(this.length);
    this.out.copy(bytes, 0, 0, this.length);
    this.length = 0;
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  private splitHeaders(id: number, block: Buffer, flags: number): void {
    let at = 0;
    let type = HEADERS;
    while (at < block.length) {
      const n = Math.min(this.maxFrameSize, block.length - at);
      const last = at + n === block.length;
      this.header(n, type, (type === HEADERS ? flags : 0) | (last ? FLAG_END_HEADERS : 0), id);
      this.append(block, at, at + n);
      at += n;
      type = CONTINUATION;
    }
  }

  private header(length: number, type: number, flags: number, id: number): void {
    this.reserve(9 + length);
    const out = this.out;
    let at = this.length;
    out[at++] = length >>> 16;
    out[at++] = (length >>> 8) & 0xff;
    out[at++] = length & 0xff;
    out[at++] = type;
    out[at++] = flags;
    out.writeUInt32BE(id, at);
    this.length = at + 4;
  }

  private setting(key: number, value: number): void {
    this.out.writeUInt16BE(key, this.length);
    this.length += 2;
    this.uint32(value);
  }

  private uint32(value: number): void {
    this.out.writeUInt32BE(value, this.length);
    this.length += 4;
  }

  /** An HPACK string length: 7-bit prefix, raw (not Huffman). */
  private integer(value: number): void {
    if (value < 127) {
      this.out[this.length++] = value;
      return;
    }
    this.out[this.length++] = 127;
    let rest = value - 127;
    while (rest >= 128) {
      this.out[this.length++] = (rest & 127) | 128;
      rest >>>= 7;
    }
    this.out[this.length++] = rest;
  }

  private append(bytes: Buffer, from: number, to: number): void {
    this.reserve(to - from);
    bytes.copy(this.out, this.length, from, to);
    this.length += to - from;
  }

  /** Room for `n` more bytes; the first bytes of a tick schedule its write. */
  private reserve(n: number): void {
    if (this.length + n > this.out.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * this.out.length, this.length + n));
      this.out.copy(bigger, 0, 0, this.length);
      this.out = bigger;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      nextTick(flushTick, this);
    }
  }

  flushTick(): void {
    this.scheduled = false;
    this.flushNow();
  }
}

function flushTick(writer: H2FrameWriter): void {
  writer.flushTick();
}

function integerLength(value: number): number {
  let n = 1;
  if (value < 127) return n;
  for (let rest = value - 127; rest >= 128; rest >>>= 7) n++;
  return n + 1;
}

function pathFieldBytes(path: string): Buffer {
  return path === '/' ? Buffer.from([PATH_ROOT]) : literalField(STATIC_INDEX.path, ':path', path);
}
