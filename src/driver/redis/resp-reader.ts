/*
 * RESP2 replies parsed as the bytes arrive, chunk by chunk, by a state machine over the socket's
 * own buffers: bulk values are skipped, never copied, and nothing is allocated per reply but the
 * prefix of an error reply. Each reply is checked against the command it answers — GET a bulk
 * string or nil, SET +OK (or nil), MGET an array of as many bulk strings or nils as keys asked,
 * any of them an error — and anything else is a malformed frame.
 */

export const CMD_GET = 0;
export const CMD_SET = 1;
export const CMD_MGET = 2;

/** What the reader reports to, in reply order: the connection and its queue of awaited commands. */
export interface ReplySink {
  /** The command the next reply answers, or −1 when nothing is awaited. */
  awaitedCommand(): number;
  /** Keys the awaited MGET asked. */
  awaitedKeys(): number;
  /** A bulk string found: GET's value, one of MGET's. */
  hit(): void;
  /** The awaited command's reply is complete. */
  done(): void;
  /** The awaited command got an error reply; `prefix` is its first word (ERR, WRONGTYPE). */
  error(prefix: string): void;
  /** The server broke the protocol: the connection cannot be read any further. */
  malformed(): void;
}

const CR = 13;
const LF = 10;

const S_TYPE = 0;
const S_INT = 1;
const S_INT_LF = 2;
const S_LINE = 3;
const S_LINE_LF = 4;
const S_BULK = 5;
const S_BULK_CR = 6;
const S_BULK_LF = 7;

/** What an integer line gives the length of. */
const INT_BULK = 0;
const INT_ARRAY = 1;
const INT_ELEMENT = 2;

/** A bulk string longer than Redis's proto-max-bulk-len maximum (512 MB) is no reply. */
const MAX_BULK = 512 * 1024 * 1024;
/** A simple-string or error line longer than this is no reply Redis writes. */
const MAX_LINE = 64 * 1024;
const PREFIX_MAX = 32;

export class RespReader {
  private state = S_TYPE;
  private intFor = INT_BULK;
  private intValue = 0;
  private intNegative = false;
  private intDigits = 0;
  private isError = false;
  private lineLength = 0;
  private readonly prefix = Buffer.alloc(PREFIX_MAX);
  private prefixLength = 0;
  private prefixDone = false;
  private bulkLeft = 0;
  /** Elements of the MGET array still to come; 0 outside one. */
  private elementsLeft = 0;

  constructor(private readonly sink: ReplySink) {}

  /** Back to the start of a reply: a new socket. */
  reset(): void {
    this.state = S_TYPE;
    this.elementsLeft = 0;
  }

  /** Reads the first `n` bytes of `data`; stops at the first malformed byte (the sink closes the connection). */
  read(data: Buffer, n: number = data.length): void {
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case S_TYPE:
          if (!this.type(data[i++]!)) return this.sink.malformed();
          break;
        case S_INT: {
          const b = data[i++]!;
          if (b === CR) {
            if (this.intDigits === 0) return this.sink.malformed();
            this.state = S_INT_LF;
          } else if (b === 45 && this.intDigits === 0 && !this.intNegative) this.intNegative = true;
          else if (b >= 48 && b <= 57 && this.intDigits < 10) {
            this.intValue = this.intValue * 10 + (b - 48);
            this.intDigits++;
          } else return this.sink.malformed();
          break;
        }
        case S_INT_LF:
          if (data[i++] !== LF || !this.integer()) return this.sink.malformed();
          break;
        case S_LINE: {
          const cr = data.indexOf(CR, i);
          const end = cr < 0 ? n : cr;
          if (this.isError && !this.prefixDone) this.takePrefix(data, i, end);
          this.lineLength += end - i;
          if (this.lineLength > MAX_LINE) return this.sink.malformed();
          i = end;
          if (cr >= 0) {
            i++;
            this.state = S_LINE_LF;
          }
          break;
        }
        case S_LINE_LF:
          if (data[i++] !== LF) return this.sink.malformed();
          this.state = S_TYPE;
          if (this.isError) this.sink.error(this.prefix.toString('latin1', 0, this.prefixLength) || 'ERR');
          else this.sink.done();
          break;
        case S_BULK: {
          const take = Math.min(this.bulkLeft, n - i);
          i += take;
          this.bulkLeft -= take;
          if (this.bulkLeft === 0) this.state = S_BULK_CR;
          break;
        }
        case S_BULK_CR:
          if (data[i++] !== CR) return this.sink.malformed();
          this.state = S_BULK_LF;
          break;
        default:
          if (data[i++] !== LF) return this.sink.malformed();
          this.valueDone();
      }
    }
  }

  /** A reply's (or an MGET element's) type byte; false when it does not answer the awaited command. */
  private type(b: number): boolean {
    if (this.elementsLeft > 0) return b === 36 ? this.startInt(INT_ELEMENT) : false;
    const command = this.sink.awaitedCommand();
    if (command < 0) return false;
    if (b === 45 || (b === 43 && command === CMD_SET)) {
      // -ERROR line, or SET's +OK.
      this.isError = b === 45;
      this.lineLength = 0;
      this.prefixLength = 0;
      this.prefixDone = false;
      this.state = S_LINE;
      return true;
    }
    if (b === 36 && command !== CMD_MGET) return this.startInt(INT_BULK);
    if (b === 42 && command === CMD_MGET) return this.startInt(INT_ARRAY);
    return false;
  }

  private startInt(intFor: number): boolean {
    this.intFor = intFor;
    this.intValue = 0;
    this.intNegative = false;
    this.intDigits = 0;
    this.state = S_INT;
    return true;
  }

  /** An integer line ended; false when its value fits no reply. */
  private integer(): boolean {
    const value = this.intValue;
    if (this.intNegative) {
      // Only a nil (-1) may be negative, and only where a bulk string may be.
      if (value !== 1 || this.intFor === INT_ARRAY) return false;
      this.state = S_TYPE;
      this.valueDone();
      return true;
    }
    if (this.intFor === INT_ARRAY) {
      if (value !== this.sink.awaitedKeys() || value === 0) return false;
      this.elementsLeft = value;
      this.state = S_TYPE;
      return true;
    }
    // A bulk string: GET's value or an MGET element. SET answers a bulk string only with GET, never sent.
    if (value > MAX_BULK || (this.intFor === INT_BULK && this.sink.awaitedCommand() === CMD_SET)) return false;
    this.sink.hit();
    this.bulkLeft = value;
    this.state = value === 0 ? S_BULK_CR : S_BULK;
    return true;
  }

  /** A bulk string or nil is complete: the reply, or one more of the MGET's elements. */
  private valueDone(): void {
    this.state = S_TYPE;
    if (this.intFor === INT_ELEMENT && --this.elementsLeft > 0) return;
    this.sink.done();
  }

  /** The error's first word, up to PREFIX_MAX bytes. */
  private takePrefix(data: Buffer, from: number, end: number): void {
    for (let j = from; j < end; j++) {
      const b = data[j]!;
      if (b === 32 || this.prefixLength === PREFIX_MAX) {
        this.prefixDone = true;
        return;
      }
      this.prefix[this.prefixLength++] = b;
    }
  }
}
