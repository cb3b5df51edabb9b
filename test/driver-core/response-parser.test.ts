import { describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BODY_BYTES, ResponseParser, type ResponseSink } from '../../src/driver/http/response-parser.ts';

/** A sink that records what the parser reports, with `outstanding` requests awaiting answers. */
class Sink implements ResponseSink {
  readonly events: string[] = [];
  constructor(public outstanding: number) {}
  get awaitingResponse(): boolean {
    return this.outstanding > 0;
  }
  onResponse(status: number, closeAfter: boolean): void {
    this.outstanding--;
    this.events.push(`response ${status}${closeAfter ? ' close' : ''}`);
  }
  onProtocolError(message: string): void {
    this.events.push(`protocol: ${message}`);
  }
  onTooLarge(): void {
    this.events.push('too large');
  }
}

function parse(text: string | Buffer, outstanding = 1): string[] {
  const sink = new Sink(outstanding);
  new ResponseParser(sink).feed(typeof text === 'string' ? Buffer.from(text, 'latin1') : text);
  return sink.events;
}

describe('ResponseParser', () => {
  it('reads a valid response, byte by byte as well as whole', () => {
    const response = 'HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno!';
    expect(parse(response)).toEqual(['response 404']);
    const sink = new Sink(1);
    const parser = new ResponseParser(sink);
    for (const b of Buffer.from(response)) parser.feed(Buffer.of(b));
    expect(sink.events).toEqual(['response 404']);
  });

  it.each([
    ['a status over 599', 'HTTP/1.1 999 Weird\r\nContent-Length: 0\r\n\r\n'],
    ['a status under 100', 'HTTP/1.1 099 Weird\r\nContent-Length: 0\r\n\r\n'],
    ['a non-numeric status', 'HTTP/1.1 XYZ Weird\r\nContent-Length: 0\r\n\r\n'],
    ['a four-digit status', 'HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n'],
    ['HTTP/2 framing', 'HTTP/2 200\r\n\r\n'],
    ['bytes that are not HTTP', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage'],
    ['an empty head', '\r\n\r\n'],
  ])('refuses %s as a protocol error', (_, text) => {
    expect(parse(text)).toEqual(['protocol: invalid status line']);
  });

  it('refuses a Content-Length that is not a number', () => {
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n')).toEqual(['protocol: invalid Content-Length']);
  });

  it('refuses a response when no request is outstanding: an extra response, or a server speaking first', () => {
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')).toEqual([
      'response 200',
      'protocol: bytes with no request outstanding',
    ]);
    expect(parse('HTTP/1.1 200 OK\r\n\r\n', 0)).toEqual(['protocol: bytes with no request outstanding']);
  });

  it('skips interim 1xx responses and refuses a protocol switch nobody asked for', () => {
    expect(parse('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')).toEqual(['response 200']);
    expect(parse('HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n')).toEqual(['protocol: switching protocols, never asked for']);
  });

  it('fails a body over the limit as too large: by Content-Length at once, by chunks or until close as it grows', () => {
    expect(parse(`HTTP/1.1 200 OK\r\nContent-Length: ${MAX_RESPONSE_BODY_BYTES + 1}\r\n\r\n`)).toEqual(['too large']);
    expect(parse(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${(MAX_RESPONSE_BODY_BYTES + 1).toString(16)}\r\n`)).toEqual(['too large']);
    const sink = new Sink(1);
    const parser = new ResponseParser(sink);
    parser.feed(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'));
    const chunk = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 32 && sink.events.length === 0; i++) parser.feed(chunk);
    expect(sink.events).toEqual([]);
    parser.feed(Buffer.alloc(1));
    expect(sink.events).toEqual(['too large']);
  });

  it('reads a chunked body and a body delimited by close to their end', () => {
    expect(parse('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n')).toEqual(['response 200']);
    const sink = new Sink(1);
    const parser = new ResponseParser(sink);
    parser.feed(Buffer.from('HTTP/1.0 200 OK\r\n\r\nbody'));
    expect(parser.readingUntilClose).toBe(true);
    parser.onEnd();
    expect(sink.events).toEqual(['response 200 close']);
  });
});
