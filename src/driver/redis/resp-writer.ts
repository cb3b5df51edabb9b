/*
 * RESP2 commands written into one growable byte buffer: a command's array header, its name and
 * each argument as a bulk string, with lengths written as ASCII digits in place — no string
 * concatenation and no Buffer per command. The connection hands the filled part to its socket once
 * per tick (resp-connection.ts).
 */

const CR = 13;
const LF = 10;
const DOLLAR = 36;
const STAR = 42;

/** The part of a command that never changes: `*<n>\r\n$<len>\r\n<NAME>\r\n`. */
export function commandHead(name: string, args: number): Buffer {
  return Buffer.from(`*${args + 1}\r\n$${name.length}\r\n${name}\r\n`, 'latin1');
}

/** Decimal digits of a non-negative integer. */
export function digitsOf(n: number): number {
  let digits = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    digits++;
  }
  return digits;
}

export class RespWriter {
  buffer: Buffer;
  used = 0;

  constructor(
    chunk: number,
    /** Called when the next command does not fit: hands over what it can and moves the rest to the start. */
    private readonly flush: () => void,
  ) {
    this.buffer = Buffer.allocUnsafe(chunk);
  }

  /**
   * Room for `bytes` more: flushes first when they do not fit, and grows, keeping what is written,
   * when the flush could not make room (commands waiting for the pipelining depth, or a large value).
   */
  ensure(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    this.flush();
    if (this.used + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.used + bytes));
    this.buffer.copy(grown, 0, 0, this.used);
    this.buffer = grown;
  }

  /** Bytes prepared once (a command's head). */
  bytes(head: Buffer): void {
    this.ensure(head.length);
    head.copy(this.buffer, this.used);
    this.used += head.length;
  }

  /** `*<n>\r\n`: the array header of a command of variable arity (MGET). */
  arrayHeader(n: number): void {
    this.ensure(16);
    const out = this.buffer;
    out[this.used] = STAR;
    this.used = this.crlf(this.digits(this.used + 1, n));
  }

  /**
   * A string argument as a bulk string. Its UTF-8 length is not known before it is written, so it
   * is written where a length of key.length digits puts it and moved in the rare case the byte
   * length has more digits (a non-ASCII key).
   */
  bulkString(text: string): void {
    this.ensure(text.length * 3 + 16);
    const out = this.buffer;
    const at = this.used;
    const guessed = digitsOf(text.length);
    const start = at + 1 + guessed + 2;
    const n = out.write(text, start, 'utf8');
    const digits = digitsOf(n);
    if (digits !== guessed) out.copyWithin(at + 1 + digits + 2, start, start + n);
    out[at] = DOLLAR;
    const end = this.crlf(this.digits(at + 1, n)) + n;
    this.used = this.crlf(end);
  }

  /** `bytes` bytes of `slab` (a buffer made once) as a bulk string. */
  bulkBytes(slab: Buffer, bytes: number): void {
    this.ensure(bytes + 16);
    const out = this.buffer;
    out[this.used] = DOLLAR;
    const at = this.crlf(this.digits(this.used + 1, bytes));
    slab.copy(out, at, 0, bytes);
    this.used = this.crlf(at + bytes);
  }

  /** A non-negative integer argument as a bulk string of its digits (SET's PX milliseconds). */
  bulkInteger(n: number): void {
    this.ensure(32);
    const out = this.buffer;
    out[this.used] = DOLLAR;
    const at = this.crlf(this.digits(this.used + 1, digitsOf(n)));
    this.used = this.crlf(this.digits(at, n));
  }

  /** Writes n's digits at `at`; returns the offset after them. */
  private digits(at: number, n: number): number {
    const end = at + digitsOf(n);
    const out = this.buffer;
    let i = end;
    do {
      out[--i] = 48 + (n % 10);
      n = Math.floor(n / 10);
    } while (n > 0);
    return end;
  }

  private crlf(at: number): number {
    this.buffer[at] = CR;
    this.buffer[at + 1] = LF;
    return at + 2;
  }
}
