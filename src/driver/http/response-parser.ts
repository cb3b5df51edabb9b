/**
 * An incremental HTTP/1.1 response parser for pipelined keep-alive connections: it finds where
 * each response ends (Content-Length, chunked, or close) and reads the status code, nothing more.
 * Bodies are skipped, never copied; the only buffer is a fixed one for the status line and headers.
 */

const HEAD_LIMIT = 16 * 1024;
const CR = 13;
const LF = 10;

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
  /** A whole response was read. */
  onResponse(status: number, closeAfter: boolean): void;
  /** The bytes are not an HTTP/1.1 response. */
  onProtocolError(message: string): void;
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

  feed(data: Buffer): void {
    let i = 0;
    const n = data.length;
    while (i < n) {
      switch (this.state) {
        case State.Head: {
          // Copy until the blank line that ends the headers.
          const head = this.head;
          while (i < n) {
            if (this.headLength === HEAD_LIMIT) return this.sink.onProtocolError('response headers over 16 KiB');
            const b = data[i++]!;
            head[this.headLength++] = b;
            const l = this.headLength;
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
          if (digit >= 0) this.chunkSize = this.chunkSize * 16 + digit;
          else if (b === CR) this.state = State.ChunkSizeLf;
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
          if (b === LF) {
            if (this.trailerLineLength === 0) this.done();
            else this.trailerLineLength = 0;
          } else if (b !== CR) this.trailerLineLength++;
          break;
        }
        case State.UntilClose:
          i = n;
          break;
      }
    }
  }

  private done(): void {
    this.state = State.Head;
    this.headLength = 0;
    this.sink.onResponse(this.status, this.closeAfter);
  }

  /** Reads the status and the three headers that frame the body; false after a protocol error. */
  private parseHead(): boolean {
    const h = this.head;
    const end = this.headLength;
    // "HTTP/1.x SSS"
    if (end < 12 || h[0] !== 72 /* H */ || h[4] !== 47 /* / */) {
      this.sink.onProtocolError('not an HTTP response');
      return false;
    }
    this.status = (h[9]! - 48) * 100 + (h[10]! - 48) * 10 + (h[11]! - 48);
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
          contentLength = 0;
          for (let j = v; j < eol && h[j]! >= 48 && h[j]! <= 57; j++) contentLength = contentLength * 10 + (h[j]! - 48);
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
    const s = this.status;
    if (this.expectNoBody || (s >= 100 && s < 200) || s === 204 || s === 304) this.done();
    else if (chunked) {
      this.chunkSize = 0;
      this.state = State.ChunkSize;
    } else if (contentLength >= 0) {
      this.remaining = contentLength;
      if (contentLength === 0) this.done();
      else this.state = State.Body;
    } else this.state = State.UntilClose;
    return true;
  }
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
