import { nextTick } from 'node:process';
import { connect, type Socket } from 'node:net';

/*
 * A minimal memcached binary-protocol client connection: pipelined get, the stores (set, add,
 * replace, cas, append, prepend), delete, incr / decr, touch and quiet multi-get (getkq… + noop),
 * one write buffer per tick, responses parsed from a fixed 24-byte header buffer with value bytes
 * skipped, never copied; each answer's CAS unique is kept for the owner to read.
 *
 * Why not memjs (1.3.2, installed): it has no multi-key get, so a 20-key batch would be 20
 * separately tracked operations; it keeps one connection per server and hashes keys itself, which
 * the profile's sharding (hash, ketama, connections per shard) would have to work around; and it
 * allocates a request Buffer, a callback closure and a response object with a copy of the value
 * per operation. Raw speed was not the deciding reason: bench:memcached runs a naive memjs closed
 * loop next to memaslap and this driver in the same run, and memjs reached 0.73–0.96× memaslap
 * there (BENCHMARKS.md).
 */

export const OP_GET = 0x00;
export const OP_SET = 0x01;
export const OP_ADD = 0x02;
export const OP_REPLACE = 0x03;
export const OP_DELETE = 0x04;
export const OP_INCREMENT = 0x05;
export const OP_DECREMENT = 0x06;
export const OP_NOOP = 0x0a;
export const OP_GETKQ = 0x0d;
export const OP_APPEND = 0x0e;
export const OP_PREPEND = 0x0f;
export const OP_TOUCH = 0x1c;

export const STATUS_OK = 0x0000;
export const STATUS_NOT_FOUND = 0x0001;
/** The key exists: an add's NOT_STORED, a cas whose unique no longer matches. */
export const STATUS_EXISTS = 0x0002;
/** An append or prepend to a key that is not there. */
export const STATUS_NOT_STORED = 0x0005;
/** An incr or decr of a value that is not a number. */
export const STATUS_NON_NUMERIC = 0x0006;

/** An incr / decr expiry that tells the server not to create a missing counter: it answers NOT_FOUND, as the text protocol's incr does. */
const NO_AUTO_CREATE = 0xffffffff;

const HEADER = 24;
const WRITE_CHUNK = 64 * 1024;
const RESPONSE_MAGIC = 0x81;
/** A response body longer than memcached's largest item (-I 1024m) is no memcached frame. */
const MAX_FRAME_BODY = 1024 * 1024 * 1024;

export interface MemcachedOwner {
  /** Some of `token`'s bytes reached a connected socket (called once per operation; the owner keeps the first). */
  wired(token: number): void;
  /** A terminal response for `token` (a single-key operation, or the noop closing a multi-get), with the CAS unique it carries. */
  answered(token: number, opcode: number, status: number, casHigh: number, casLow: number): void;
  /** A getkq hit for `token` (comes before its noop). */
  quietHit(token: number): void;
  /** An outstanding operation failed: errno code, "closed", "timeout" or "protocol". */
  failed(token: number, cause: string): void;
}

/**
 * One pipelined connection. Every response frame is checked against the request it answers —
 * magic, data type, lengths, opcode and opaque (the token) — and a frame that does not fit, or
 * bytes when nothing is awaited, is a protocol error: the oldest operation fails with it, the
 * connection closes and the others fail as `closed`. Operations written while the socket connects
 * wait in Node's buffer and count as sent only once it is connected.
 */
export class BinaryConnection {
  private socket: Socket | undefined;
  /** Terminal responses awaited, in order: tokens (the caller's ids) and their opcodes in growable rings. */
  private ring = new Int32Array(1024);
  private opcodes = new Uint8Array(1024);
  private head = 0;
  count = 0;
  connects = 0;
  /** Connections closed because the server broke the protocol. */
  protocolErrors = 0;
  connected = false;
  /** Why the last dial failed, e.g. "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:11211": the reason a run that could not start gives. */
  lastDialError: string | undefined;
  private out: Buffer = Buffer.allocUnsafe(WRITE_CHUNK);
  private used = 0;
  private flushQueued = false;
  private readonly header = Buffer.alloc(HEADER);
  private headerUsed = 0;
  private skip = 0;

  constructor(
    readonly host: string,
    readonly port: number,
    private readonly owner: MemcachedOwner,
  ) {}

  /** The oldest awaited token, or −1. */
  get oldest(): number {
    return this.count > 0 ? this.ring[this.head]! : -1;
  }

  get(token: number, key: string): void {
    this.request(OP_GET, token, key, 0, undefined, 0);
  }

  /** A quiet get: answered only on a hit; close the batch with `noop`. */
  getQuiet(token: number, key: string): void {
    this.request(OP_GETKQ, token, key, 0, undefined, 0, 0, false);
  }

  noop(token: number): void {
    this.request(OP_NOOP, token, '', 0, undefined, 0);
  }

  /**
   * A store (OP_SET, OP_ADD, OP_REPLACE) of `valueBytes` bytes of `slab` (one buffer generated at
   * setup); a set with a CAS unique (not 0) is a cas: stored only while the key still has it.
   */
  store(opcode: number, token: number, key: string, slab: Buffer, valueBytes: number, expirySeconds: number, casHigh = 0, casLow = 0): void {
    this.request(opcode, token, key, 8, slab, Math.min(valueBytes, slab.length), expirySeconds, true, casHigh, casLow);
  }

  /** OP_APPEND or OP_PREPEND: bytes added to a value already there (they carry no expiry). */
  concat(opcode: number, token: number, key: string, slab: Buffer, valueBytes: number): void {
    this.request(opcode, token, key, 0, slab, Math.min(valueBytes, slab.length));
  }

  /** OP_INCREMENT or OP_DECREMENT by 1; a missing counter is not created. */
  counter(opcode: number, token: number, key: string): void {
    this.request(opcode, token, key, 20, undefined, 0);
  }

  touch(token: number, key: string, expirySeconds: number): void {
    this.request(OP_TOUCH, token, key, 4, undefined, 0, expirySeconds);
  }

  delete(token: number, key: string): void {
    this.request(OP_DELETE, token, key, 0, undefined, 0);
  }

  /** Dials now (before the run's clock starts); resolves when connected or failed, never rejects. */
  preconnect(): Promise<void> {
    if (!this.socket) this.open();
    const socket = this.socket!;
    return new Promise((resolve) => {
      if (this.connected) return resolve();
      socket.once('connect', () => resolve());
      socket.once('close', () => resolve());
    });
  }

  abort(cause: string): void {
    const socket = this.socket;
    this.detach();
    socket?.destroy();
    this.failAll(cause);
  }

  /** The server broke the protocol: the oldest operation fails with it, the rest as closed. */
  private protocolError(): void {
    this.protocolErrors++;
    const socket = this.socket;
    this.detach();
    socket?.destroy();
    if (this.count > 0) {
      const token = this.ring[this.head]!;
      this.head = (this.head + 1) % this.ring.length;
      this.count--;
      this.owner.failed(token, 'protocol');
    }
    this.failAll('closed');
  }

  close(): void {
    this.socket?.destroy();
    this.detach();
    this.count = 0;
  }

  private request(
    opcode: number,
    token: number,
    key: string,
    extras: 0 | 4 | 8 | 20,
    slab: Buffer | undefined,
    valueBytes: number,
    expiry = 0,
    awaited = true,
    casHigh = 0,
    casLow = 0,
  ): void {
    if (!this.socket) this.open();
    const keyMax = key.length * 3;
    this.ensure(HEADER + extras + keyMax + valueBytes);
    const out = this.out;
    const at = this.used;
    const keyLength = out.write(key, at + HEADER + extras, 'utf8');
    const body = extras + keyLength + valueBytes;
    out[at] = 0x80;
    out[at + 1] = opcode;
    out.writeUInt16BE(keyLength, at + 2);
    out[at + 4] = extras;
    out[at + 5] = 0;
    out.writeUInt16BE(0, at + 6);
    out.writeUInt32BE(body, at + 8);
    out.writeInt32BE(token, at + 12);
    out.writeUInt32BE(casHigh, at + 16);
    out.writeUInt32BE(casLow, at + 20);
    writeExtras(out, at + HEADER, extras, expiry);
    if (slab !== undefined && valueBytes > 0) slab.copy(out, at + HEADER + extras + keyLength, 0, valueBytes);
    this.used = at + HEADER + body;
    if (awaited) this.await(token, opcode);
    if (this.connected) this.owner.wired(token);
    if (!this.flushQueued) {
      this.flushQueued = true;
      nextTick(flush, this);
    }
  }

  private await(token: number, opcode: number): void {
    if (this.count === this.ring.length) {
      const grown = new Int32Array(this.ring.length * 2);
      const grownOpcodes = new Uint8Array(this.ring.length * 2);
      for (let i = 0; i < this.count; i++) {
        grown[i] = this.ring[(this.head + i) % this.ring.length]!;
        grownOpcodes[i] = this.opcodes[(this.head + i) % this.ring.length]!;
      }
      this.ring = grown;
      this.opcodes = grownOpcodes;
      this.head = 0;
    }
    const at = (this.head + this.count) % this.ring.length;
    this.ring[at] = token;
    this.opcodes[at] = opcode;
    this.count++;
  }

  private ensure(bytes: number): void {
    if (this.used + bytes <= this.out.length) return;
    this.flushNow();
    if (bytes > this.out.length) this.out = Buffer.allocUnsafe(bytes);
  }

  /**
   * Hands the bytes written since the last flush to the socket, once per tick. The socket keeps a
   * reference to what it is given, so it gets a copy of the used part and the write buffer is reused.
   */
  flushNow(): void {
    this.flushQueued = false;
    if (this.used === 0 || !this.socket) return;
    this.socket.write(Buffer.from(this.out.subarray(0, this.used)));
    this.used = 0;
  }

  private open(): Socket {
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    this.socket = socket;
    this.connects++;
    this.headerUsed = 0;
    this.skip = 0;
    socket.on('connect', () => {
      if (this.socket !== socket) return;
      this.connected = true;
      for (let i = 0; i < this.count; i++) this.owner.wired(this.ring[(this.head + i) % this.ring.length]!);
    });
    socket.on('data', (data: Buffer) => {
      if (this.socket === socket) this.read(data);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (this.socket !== socket) return;
      if (!this.connected) this.lastDialError = `${error.code ? `${error.code}: ` : ''}${error.message.replace(/\s+/g, ' ').trim()}`;
      this.detach();
      this.failAll(error.code ?? 'socket_error');
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.detach();
      this.failAll('closed');
    });
    return socket;
  }

  private read(data: Buffer): void {
    let i = 0;
    const n = data.length;
    const h = this.header;
    while (i < n) {
      if (this.skip > 0) {
        const take = Math.min(this.skip, n - i);
        i += take;
        this.skip -= take;
        continue;
      }
      // A frame starting when nothing is awaited: an extra response, or a server speaking first.
      if (this.headerUsed === 0 && this.count === 0) return this.protocolError();
      const take = Math.min(HEADER - this.headerUsed, n - i);
      data.copy(h, this.headerUsed, i, i + take);
      this.headerUsed += take;
      i += take;
      if (this.headerUsed < HEADER) return;
      this.headerUsed = 0;
      const body = h.readUInt32BE(8);
      const opcode = h[1]!;
      const token = h.readInt32BE(12);
      const expected = this.ring[this.head]!;
      if (!frameFits(h, body) || token !== expected) return this.protocolError();
      this.skip = body;
      const status = h.readUInt16BE(6);
      // A quiet get answers (on a hit) before the noop awaited for the same token.
      if (opcode === OP_GETKQ && this.opcodes[this.head] === OP_NOOP) {
        if (status === STATUS_OK) this.owner.quietHit(token);
        continue;
      }
      if (opcode !== this.opcodes[this.head]) return this.protocolError();
      this.head = (this.head + 1) % this.ring.length;
      this.count--;
      // The CAS unique as two 32-bit halves: no BigInt per answer.
      this.owner.answered(token, opcode, status, h.readUInt32BE(16), h.readUInt32BE(20));
    }
  }

  private detach(): void {
    this.socket = undefined;
    this.connected = false;
    this.used = 0;
    this.flushQueued = false;
  }

  private failAll(cause: string): void {
    while (this.count > 0) {
      const token = this.ring[this.head]!;
      this.head = (this.head + 1) % this.ring.length;
      this.count--;
      this.owner.failed(token, cause);
    }
    this.head = 0;
  }
}

/** A request's extras: a store's flags (0) and expiry, a touch's expiry, or a counter's delta 1, initial 0 and no auto-create. */
function writeExtras(out: Buffer, at: number, extras: 0 | 4 | 8 | 20, expiry: number): void {
  if (extras === 4) out.writeUInt32BE(expiry, at);
  else if (extras === 8) {
    out.writeUInt32BE(0, at);
    out.writeUInt32BE(expiry, at + 4);
  } else if (extras === 20) {
    out.fill(0, at, at + 16);
    out[at + 7] = 1;
    out.writeUInt32BE(NO_AUTO_CREATE, at + 16);
  }
}

/** Magic, data type and lengths of a response header are those of a memcached binary response. */
function frameFits(h: Buffer, body: number): boolean {
  return h[0] === RESPONSE_MAGIC && h[5] === 0 && body <= MAX_FRAME_BODY && h.readUInt16BE(2) + h[4]! <= body;
}

function flush(connection: BinaryConnection): void {
  connection.flushNow();
}
