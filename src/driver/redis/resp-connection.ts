import { nextTick } from 'node:process';
import { connect, type Socket } from 'node:net';
import { CMD_GET, CMD_MGET, CMD_SET, RespReader, type ReplySink } from './resp-reader.ts';
import { commandHead, RespWriter } from './resp-writer.ts';

/*
 * One pipelined RESP2 connection to a Redis server: GET, SET (with PX for a TTL) and MGET. Every
 * command due in a tick goes into one write buffer, handed to the socket once (the pacer submits a
 * tick's requests together): one socket write per tick, not per command, which is what a Redis
 * client's throughput is bound by (small writes were a first attempt's 0.3–0.8× redis-benchmark).
 * Replies are parsed as they arrive, from one shared read buffer (resp-reader.ts), and matched to
 * commands in order. With a pipelining depth, commands past it stay in the write buffer until
 * replies make room; then what fits goes out in one write per read.
 *
 * Why not ioredis: see BENCHMARKS.md (Redis) — measured beside this client in the same run.
 */

const WRITE_CHUNK = 64 * 1024;
/**
 * Where every Redis socket of the process reads into (`onread`): no Buffer per read and no stream
 * machinery between the read and the parser, which at pipelining 1 is one read per reply. One
 * buffer is enough: a read is parsed synchronously and nothing of it is kept.
 */
const SHARED_READ_BUFFER = Buffer.allocUnsafe(64 * 1024);
const GET_HEAD = commandHead('GET', 1);
const SET_HEAD = commandHead('SET', 2);
const SET_PX_HEAD = commandHead('SET', 4);
const PX = Buffer.from('$2\r\nPX\r\n', 'latin1');
const MGET_NAME = Buffer.from('$4\r\nMGET\r\n', 'latin1');

export interface RedisOwner {
  /** Some of `token`'s bytes reached a connected socket (called once per command; the owner keeps the first). */
  wired(token: number): void;
  /** A key `token` asked was found. */
  hit(token: number): void;
  /** `token`'s command (CMD_*) was answered; `errorPrefix` is set for an error reply. */
  answered(token: number, command: number, errorPrefix: string | undefined): void;
  /** An outstanding command failed: errno code, "closed", "timeout" or "protocol". */
  failed(token: number, cause: string): void;
}

export class RespConnection implements ReplySink {
  private socket: Socket | undefined;
  /** Replies awaited, in order: tokens, commands and (MGET) keys asked, in growable rings. */
  private tokens = new Int32Array(1024);
  private commands = new Uint8Array(1024);
  private keyCounts = new Int32Array(1024);
  /** Per awaited command: where its bytes end in everything this connection has written (see `flushedBytes`). */
  private ends = new Float64Array(1024);
  private head = 0;
  /** Commands awaited: the first `onWire` of them handed to the socket, the rest waiting for room. */
  count = 0;
  onWire = 0;
  /** Bytes handed to the socket since the connection opened: where writer.buffer[0] sits in that stream. */
  private flushedBytes = 0;
  connects = 0;
  /** Connections closed because the server broke the protocol. */
  protocolErrors = 0;
  connected = false;
  /** Why the last dial failed, e.g. "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:6379". */
  lastDialError: string | undefined;
  private readonly writer = new RespWriter(WRITE_CHUNK, () => this.flushNow());
  private readonly reader = new RespReader(this);
  private flushQueued = false;
  /** The MGET whose keys are being written. */
  private mgetToken = 0;
  private mgetKeys = 0;
  private mgetKeysLeft = 0;

  constructor(
    readonly host: string,
    readonly port: number,
    private readonly owner: RedisOwner,
    /** Most commands on the wire at once (redis.pipelining); Infinity when unbounded. */
    private readonly depth = Number.POSITIVE_INFINITY,
  ) {}

  /** A command sent now would have to wait for a reply first. */
  get full(): boolean {
    return this.count >= this.depth;
  }

  /** The oldest awaited token, or −1. */
  get oldest(): number {
    return this.count > 0 ? this.tokens[this.head]! : -1;
  }

  get(token: number, key: string): void {
    this.begin();
    this.writer.bytes(GET_HEAD);
    this.writer.bulkString(key);
    this.sent(token, CMD_GET, 1);
  }

  /** SET of `valueBytes` bytes of `slab` (one buffer made at setup), expiring after `ttlMs` (0: never). */
  set(token: number, key: string, slab: Buffer, valueBytes: number, ttlMs: number): void {
    this.begin();
    const w = this.writer;
    w.bytes(ttlMs > 0 ? SET_PX_HEAD : SET_HEAD);
    w.bulkString(key);
    w.bulkBytes(slab, Math.min(valueBytes, slab.length));
    if (ttlMs > 0) {
      w.bytes(PX);
      w.bulkInteger(ttlMs);
    }
    this.sent(token, CMD_SET, 0);
  }

  /** An MGET of `keys` keys: follow with that many mgetKey calls before anything else on this connection. */
  mget(token: number, keys: number): void {
    this.begin();
    this.writer.arrayHeader(keys + 1);
    this.writer.bytes(MGET_NAME);
    this.mgetToken = token;
    this.mgetKeys = keys;
    this.mgetKeysLeft = keys;
  }

  /** One of the open MGET's keys; the last one makes it a command sent (a flush never cuts a command short). */
  mgetKey(key: string): void {
    this.writer.bulkString(key);
    if (--this.mgetKeysLeft === 0) this.sent(this.mgetToken, CMD_MGET, this.mgetKeys);
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

  close(): void {
    this.socket?.destroy();
    this.detach();
    this.count = 0;
  }

  awaitedCommand(): number {
    return this.count > 0 ? this.commands[this.head]! : -1;
  }

  awaitedKeys(): number {
    return this.keyCounts[this.head]!;
  }

  hit(): void {
    this.owner.hit(this.tokens[this.head]!);
  }

  done(): void {
    const command = this.commands[this.head]!;
    this.owner.answered(this.pop(), command, undefined);
  }

  error(prefix: string): void {
    const command = this.commands[this.head]!;
    this.owner.answered(this.pop(), command, prefix);
  }

  /** The server broke the protocol: the oldest command fails with it, the rest as closed. */
  malformed(): void {
    this.protocolErrors++;
    const socket = this.socket;
    this.detach();
    socket?.destroy();
    if (this.count > 0) this.owner.failed(this.pop(), 'protocol');
    this.failAll('closed');
  }

  /**
   * Hands the commands written since the last flush to the socket, as many as the depth leaves room
   * for, once per tick (and after each read that made room). The socket keeps a reference to what it
   * is given, so it gets a copy and the write buffer is reused; bytes of commands still waiting (or of
   * one half written, when the buffer filled mid-command) move to its start.
   */
  flushNow(): void {
    this.flushQueued = false;
    const w = this.writer;
    if (w.used === 0 || !this.socket) return;
    const room = Math.min(this.count, this.depth) - this.onWire;
    if (room <= 0) return;
    const last = this.onWire + room;
    const bytes = this.ends[(this.head + last - 1) % this.ends.length]! - this.flushedBytes;
    this.socket.write(Buffer.from(w.buffer.subarray(0, bytes)));
    if (bytes < w.used) w.buffer.copyWithin(0, bytes, w.used);
    w.used -= bytes;
    this.flushedBytes += bytes;
    if (this.connected) for (let i = this.onWire; i < last; i++) this.owner.wired(this.tokens[(this.head + i) % this.tokens.length]!);
    this.onWire = last;
  }

  private begin(): void {
    if (!this.socket) this.open();
  }

  /** A command is written: its reply is awaited, and the bytes go out at the end of the tick (or when there is room). */
  private sent(token: number, command: number, keys: number): void {
    if (this.count === this.tokens.length) this.grow();
    const at = (this.head + this.count) % this.tokens.length;
    this.tokens[at] = token;
    this.commands[at] = command;
    this.keyCounts[at] = keys;
    this.ends[at] = this.flushedBytes + this.writer.used;
    this.count++;
    if (!this.flushQueued && this.onWire < this.depth) {
      this.flushQueued = true;
      nextTick(flush, this);
    }
  }

  private pop(): number {
    const token = this.tokens[this.head]!;
    this.head = (this.head + 1) % this.tokens.length;
    this.count--;
    if (this.onWire > 0) this.onWire--;
    return token;
  }

  private grow(): void {
    const size = this.tokens.length;
    const tokens = new Int32Array(size * 2);
    const commands = new Uint8Array(size * 2);
    const keyCounts = new Int32Array(size * 2);
    const ends = new Float64Array(size * 2);
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) % size;
      tokens[i] = this.tokens[from]!;
      commands[i] = this.commands[from]!;
      keyCounts[i] = this.keyCounts[from]!;
      ends[i] = this.ends[from]!;
    }
    this.tokens = tokens;
    this.commands = commands;
    this.keyCounts = keyCounts;
    this.ends = ends;
    this.head = 0;
  }

  private open(): Socket {
    const socket = connect({
      host: this.host,
      port: this.port,
      noDelay: true,
      onread: {
        buffer: SHARED_READ_BUFFER,
        callback: (length, bytes) => {
          if (this.socket !== socket) return true;
          this.reader.read(bytes as Buffer, length);
          if (this.onWire < this.count && this.socket === socket) this.flushNow();
          return true;
        },
      },
    });
    this.socket = socket;
    this.connects++;
    this.reader.reset();
    socket.on('connect', () => {
      if (this.socket !== socket) return;
      this.connected = true;
      for (let i = 0; i < this.onWire; i++) this.owner.wired(this.tokens[(this.head + i) % this.tokens.length]!);
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

  private detach(): void {
    this.socket = undefined;
    this.connected = false;
    this.writer.used = 0;
    this.flushedBytes = 0;
    this.onWire = 0;
    this.flushQueued = false;
  }

  private failAll(cause: string): void {
    while (this.count > 0) this.owner.failed(this.pop(), cause);
    this.head = 0;
  }
}

function flush(connection: RespConnection): void {
  connection.flushNow();
}

export { CMD_GET, CMD_MGET, CMD_SET };
