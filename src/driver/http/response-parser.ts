/**
 * An incremental HTTP/1.1 response parser for pipelined keep-alive connections: it finds where
 * each response ends (Content-Length, chunked, or close) and reads the status code, nothing more.
 * Bodies are skipped, never copied; the only buffer is a fixed one for the status line and headers.
 *
 * It is strict about what it counts: only a whole response with a valid status line
 * (`HTTP/1.x SSS`, SSS in 100–599) is a response. Anything else — bytes that are not HTTP, bytes
 * when no request awaits an answer (an extra response, a server that speaks first), a bad length —
 * is a protocol error: the connection cannot be trusted to pair responses with requests after it.
 */

const HEAD_LIMIT = 16 * 1024;
/**
 * Largest response body read. A load test measures a service, not a bulk transfer: a bigger body
 * (Content-Length over it, or chunks or a read-until-close body adding up past it) fails its
 * request as `response_too_large` and closes the connection, so a runaway or endless body cannot
 * hold a connection for the rest of a run. A body that is merely slow (a trickle) ends at the
 * request timeout instead.
 */
export const MAX_RESPONSE_BODY_BYTES = 32 * 1024 * 1024;
const CR = 13;
const LF = 10;
/** "HTTP/1.x SSS" and the byte after it: enough to judge the status line. */
const STATUS_LINE_BYTES = 13;
const HTTP_1_PREFIX = bytes('HTTP/1.');

const enum State {
  Head,
  Body,
  ChunkSize,
  ChunkExt,
  ChunkSizeLf,
  ChunkData,
  ChunkDataCr,
  ChunkDataLf,
  Trailer,
  UntilClose,
}

export interface ResponseSink {
  /** True while a request waits for its response; a response starting otherwise is a protocol error. */
  readonly awaitingResponse: boolean;
  /** A whole response was read. */
  onResponse(status: number, closeAfter: boolean): void;
  /** The bytes are not a valid HTTP/1.1 response to an outstanding request. */
  onProtocolError(message: string): void;
  /** The response's body is over MAX_RESPONSE_BODY_BYTES. */
  onTooLarge(): void;
}

const NAME_CONTENT_LENGTH = bytes('content-length');
const NAME_TRANSFER_ENCODING = bytes('transfer-encoding');
const NAME_CONNECTION = bytes('connection');

export class ResponseParser {
  private state = State.Head;
  private readonly head = Buffer.allocUnsafe(HEAD_LIMIT);
  private headLength = 0;
  private remaining = 0;
  private chunkSize = 0;
  private trailerLineLength = 0;
  /** Body bytes of the current response so far (chunked or until close; a Content-Length is checked at once). */
  private bodyBytes = 0;
  private status = 0;
  private closeAfter = false;
  /** Set per response by the connection: a HEAD request's response has no body. */
  expectNoBody = false;

  constructor(private readonly sink: ResponseSink) {}

  reset(): void {
    this.state = State.Head;
    this.headLength = 0;
  }

  /** True when a response without a length is being read until the server closes. */
  get readingUntilClose(): boolean {
    return this.state === State.UntilClose;
  }

  /** The server closed: a response delimited by close is complete now. */
  onEnd(): void {
    if (this.state === State.UntilClose) {
      this.state = State.Head;
      this.sink.onResponse(this.status, true);
    }
  }

  /** Reads `data[0, length)`; keeps no reference to `data` (the caller may reuse it). */
  feed(data: Buffer, length = data.length): void {
    let i = 0;
    const n = length;
    while (i < n) {
      switch (this.state) {
        case State.Head: {
          if (this.headLength === 0 && !this.sink.awaitingResponse) return this.sink.onProtocolError('bytes with no request outstanding');
          // Copy until the blank line that ends the headers, judging the status line on the way.
          const head = this.head;
          while (i < n) {
            if (this.headLength === HEAD_LIMIT) return this.sink.onProtocolError('response headers over 16 KiB');
            const b = data[i++]!;
            head[this.headLength++] = b;
            const l = this.headLength;
            if (l <= STATUS_LINE_BYTES && !this.statusLineSoFarValid(l)) return this.sink.onProtocolError('invalid status line');
            if (b === LF && l >= 4 && head[l - 2] === CR && head[l - 3] === LF && head[l - 4] === CR) {
              if (!this.parseHead()) return;
              break;
            }
          }
          break;
        }
        case State.Body: {
          const take = Math.min(this.remaining, n - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.done();
          break;
        }
        case State.ChunkSize: {
          const b = data[i++]!;
          const digit = hexDigit(b);
          if (digit >= 0) {
            this.chunkSize = this.chunkSize * 16 + digit;
            if (this.bodyBytes + this.chunkSize > MAX_RESPONSE_BODY_BYTES) return this.sink.onTooLarge();
          } else if (b === CR) this.state = State.ChunkSizeLf;
          else if (b === 59 /* ; */ || b === 32 || b === 9) this.state = State.ChunkExt;
          else return this.sink.onProtocolError('bad chunk size');
          break;
        }
        case State.ChunkExt:
          if (data[i++] === CR) this.state = State.ChunkSizeLf;
          break;
        case State.ChunkSizeLf:
          if (data[i++] !== LF) return this.sink.onProtocolError('bad chunk size line');
          if (this.chunkSize === 0) {
            this.state = State.Trailer;
            this.trailerLineLength = 0;
          } else {
            this.bodyBytes += this.chunkSize;
            this.remaining = this.chunkSize;
            this.state = State.ChunkData;
          }
          break;
        case State.ChunkData: {
          const take = Math.min(this.remaining, n - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = State.ChunkDataCr;
          break;
        }
        case State.ChunkDataCr:
          if (data[i++] !== CR) return this.sink.onProtocolError('chunk not followed by CRLF');
          this.state = State.ChunkDataLf;
          break;
        case State.ChunkDataLf:
          if (data[i++] !== LF) return this.sink.onProtocolError('chunk not followed by CRLF');
          this.chunkSize = 0;
          this.state = State.ChunkSize;
          break;
        case State.Trailer: {
          // Trailer lines until an empty line; only the empty line's CRLF matters.
          const b = data[i++]!;
          if (++this.bodyBytes > MAX_RESPONSE_BODY_BYTES) return this.sink.onTooLarge();
          if (b === LF) {
            if (this.trailerLineLength === 0) this.done();
            else this.trailerLineLength = 0;
          } else if (b !== CR) this.trailerLineLength++;
          break;
        }
        case State.UntilClose:
          this.bodyBytes += n - i;
          i = n;
          if (this.bodyBytes > MAX_RESPONSE_BODY_BYTES) return this.sink.onTooLarge();
          break;
      }
    }
  }

  private done(): void {
    this.state = State.Head;
    this.headLength = 0;
    this.sink.onResponse(this.status, this.closeAfter);
  }

  /**
   * Byte `l` (1-based) of the status line is valid so far: "HTTP/1." then a digit, a space, three
   * digits and a space or CR; at the last of them the status must be 100–599.
   */
  private statusLineSoFarValid(l: number): boolean {
    const b = this.head[l - 1]!;
    if (l <= 7) return b === HTTP_1_PREFIX[l - 1];
    if (l === 9) return b === 32;
    if (l < STATUS_LINE_BYTES) return b >= 48 && b <= 57;
    if (b !== 32 && b !== CR) return false;
    const s = this.statusCode();
    return s >= 100 && s <= 599;
  }

  private statusCode(): number {
    const h = this.head;
    return (h[9]! - 48) * 100 + (h[10]! - 48) * 10 + (h[11]! - 48);
  }

  /** Reads the status and the three headers that frame the body; false after a protocol error. */
  private parseHead(): boolean {
    const h = this.head;
    const end = this.headLength;
    // The status line was judged byte by byte; a head ending before it was whole is no response.
    if (end < STATUS_LINE_BYTES) {
      this.sink.onProtocolError('invalid status line');
      return false;
    }
    const s = this.statusCode();
    this.status = s;
    if (s === 101) {
      this.sink.onProtocolError('switching protocols, never asked for');
      return false;
    }
    if (s < 200) {
      // An interim response (100 Continue, 103 Early Hints): the final one for the request follows.
      this.headLength = 0;
      return true;
    }
    const http10 = h[7] === 48; // "HTTP/1.0"
    let contentLength = -1;
    let chunked = false;
    this.closeAfter = http10;
    let line = indexOfCrlf(h, 0, end) + 2;
    while (line < end - 2) {
      const eol = indexOfCrlf(h, line, end);
      const colon = h.indexOf(58, line);
      if (colon > line && colon < eol) {
        let v = colon + 1;
        while (v < eol && (h[v] === 32 || h[v] === 9)) v++;
        if (nameIs(h, line, colon, NAME_CONTENT_LENGTH)) {
          contentLength = parseLength(h, v, eol);
          if (contentLength === -1) {
            this.sink.onProtocolError('invalid Content-Length');
            return false;
          }
        } else if (nameIs(h, line, colon, NAME_TRANSFER_ENCODING)) {
          chunked = endsWithChunked(h, v, eol);
        } else if (nameIs(h, line, colon, NAME_CONNECTION)) {
          const first = h[v]! | 0x20;
          if (first === 99 /* c */) this.closeAfter = true;
          else if (first === 107 /* k */) this.closeAfter = false;
        }
      }
      line = eol + 2;
    }
    this.bodyBytes = 0;
    if (this.expectNoBody || s === 204 || s === 304) this.done();
    else if (chunked) {
      this.chunkSize = 0;
      this.state = State.ChunkSize;
    } else if (contentLength > MAX_RESPONSE_BODY_BYTES) {
      this.sink.onTooLarge();
      return false;
    } else if (contentLength >= 0) {
      this.remaining = contentLength;
      if (contentLength === 0) this.done();
      else this.state = State.Body;
    } else this.state = State.UntilClose;
    return true;
  }
}

/** A Content-Length value: digits, then optional whitespace; −1 when it is not one (or absurdly long). */
function parseLength(h: Buffer, start: number, end: number): number {
  let e = end;
  while (e > start && (h[e - 1] === 32 || h[e - 1] === 9)) e--;
  // 15 digits stay exact in a double and are far past any body this parser reads.
  if (e === start || e - start > 15) return -1;
  let length = 0;
  for (let j = start; j < e; j++) {
    const b = h[j]!;
    if (b < 48 || b > 57) return -1;
    length = length * 10 + (b - 48);
  }
  return length;
}

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function indexOfCrlf(h: Buffer, from: number, end: number): number {
  for (let i = from; i < end - 1; i++) if (h[i] === CR && h[i + 1] === LF) return i;
  return end;
}

function nameIs(h: Buffer, start: number, colon: number, name: Uint8Array): boolean {
  if (colon - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if ((h[start + i]! | 0x20) !== name[i]) return false;
  return true;
}

function endsWithChunked(h: Buffer, start: number, end: number): boolean {
  let e = end;
  while (e > start && (h[e - 1] === 32 || h[e - 1] === 9)) e--;
  if (e - start < 7) return false;
  const word = 'chunked';
  for (let i = 0; i < 7; i++) if ((h[e - 7 + i]! | 0x20) !== word.charCodeAt(i)) return false;
  return true;
}

function hexDigit(b: number): number {
  if (b >= 48 && b <= 57) return b - 48;
  const l = b | 0x20;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}
