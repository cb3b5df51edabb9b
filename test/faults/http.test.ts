import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BODY_BYTES } from '../../src/driver/http/response-parser.ts';
import type { HttpTransportReport } from '../../src/recorder/driver-report.ts';
import { type Fault, type FaultServer, startFaultyHttp } from './fault-servers.ts';
import { expectOutcome, runAgainstFault } from './run-check.ts';

/*
 * Each case: 20 GETs at 20/s (constant arrivals) over one connection, to a server that answers the
 * first five and misbehaves from the sixth on. Without pipelining, a request due while the one
 * before it is still out waits for the connection (a busy machine can stall 50 ms), so each request
 * meets the fault on its own, whatever the timing. The cases that end in a timeout pipeline every
 * request instead: the timeout closes the connection and fails all that are on it, whatever the
 * timing, where requests queued one by one behind 300 ms timeouts would outlast the run.
 */
const FROM = 6;
const OK_BEFORE = FROM - 1;
const AFTER = 20 - OK_BEFORE;

const servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function runFault(fault: Fault, settings: { from?: number; timeout?: string; greet?: (socket: Socket) => void } = {}) {
  const pipelining = settings.timeout === undefined ? 1 : 32;
  const server = await startFaultyHttp(settings.from ?? FROM, fault, settings.greet ? { greet: settings.greet } : {});
  servers.push(server);
  const result = await runAgainstFault(`http://127.0.0.1:${server.port}`, { section: { connections: 1, pipelining, timeout: settings.timeout ?? '10s' } });
  return { result, transport: result.driver.transport as HttpTransportReport };
}

const write =
  (text: string): Fault =>
  (socket) =>
    socket.write(text);

/** Writes `bytes` of body after `head`, 1 MiB at a time as the socket drains, until done or closed. */
function bodyOf(head: string, bytes: number): Fault {
  return (socket, { first }) => {
    if (!first) return;
    socket.write(head);
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    let left = bytes;
    const pump = () => {
      while (left > 0 && !socket.destroyed) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!socket.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void socket.once('drain', pump);
      }
      if (!socket.destroyed) socket.end();
    };
    pump();
  };
}

/** Writes `piece(0)`, `piece(1)`, … every `everyMs` for as long as the socket is open. */
function drip(head: string, everyMs: number, piece: (i: number) => string | Buffer): Fault {
  return (socket, { first, onClose }) => {
    if (!first) return;
    socket.write(head);
    let i = 0;
    const timer = setInterval(() => socket.write(piece(i++)), everyMs);
    onClose(() => clearInterval(timer));
  };
}

describe('http driver against faulty servers (127.0.0.1)', () => {
  it('a server that exits mid-run: the request it took fails as closed, later ones are refused and never sent', async () => {
    const { result } = await runFault((_, { server }) => server.exit());
    expectOutcome(result, { ok: OK_BEFORE, errors: { closed: 1, refused: AFTER - 1 }, sent: FROM, notSent: AFTER - 1 });
  });

  it('a server that drops sockets: every request from the fault on fails as reset', async () => {
    const { result } = await runFault((socket) => socket.resetAndDestroy());
    expectOutcome(result, { ok: OK_BEFORE, errors: { reset: AFTER }, sent: 20 });
  });

  it('a server that never answers: every request from the fault on times out', async () => {
    const { result } = await runFault(() => {}, { timeout: '300ms' });
    expectOutcome(result, { ok: OK_BEFORE, errors: { timeout: AFTER }, sent: 20 });
  });

  it.each([
    ['garbage bytes', '\u0000\u009c\u00f1 binary garbage, no HTTP here at all\r\n\r\n'],
    ['status 999', 'HTTP/1.1 999 Weird\r\nContent-Length: 2\r\n\r\nok'],
    ['a non-numeric status', 'HTTP/1.1 XYZ Weird\r\nContent-Length: 2\r\n\r\nok'],
  ])('a server answering %s: protocol_error for each, each connection closed and counted', async (_, answer) => {
    const { result, transport } = await runFault(write(answer));
    expectOutcome(result, { ok: OK_BEFORE, errors: { protocol_error: AFTER }, sent: 20 });
    expect(transport.protocolErrors).toBe(AFTER);
    expect(transport.statusCodes).toEqual({ 200: OK_BEFORE });
  });

  it('a server answering twice: the first answer counts, the extra one closes the connection as a protocol error', async () => {
    const ok = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
    const { result, transport } = await runFault(write(ok + ok));
    // Never 2 responses per request: the extra one has no request to be charged to.
    expectOutcome(result, { ok: 20, errors: {}, sent: 20 });
    expect(transport.protocolErrors).toBe(AFTER);
    expect(transport.statusCodes).toEqual({ 200: 20 });
  });

  it('a server that speaks first: every request fails as protocol_error, none is charged the greeting as its answer', async () => {
    // It would answer every request correctly, after its greeting on every connection.
    const { result, transport } = await runFault(() => {}, { from: Number.POSITIVE_INFINITY, greet: (socket) => socket.write('220 fault-server ready\r\n') });
    expectOutcome(result, { ok: 0, errors: { protocol_error: 20 }, sent: 20 });
    // The connection dialed before the run may see its greeting before any request: one more.
    expect(transport.protocolErrors).toBeGreaterThanOrEqual(20);
    expect(transport.protocolErrors).toBeLessThanOrEqual(21);
  });

  it('a server that trickles its answer at 1 byte/s: the requests time out', async () => {
    const response = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    const { result } = await runFault(
      drip('', 1000, (i) => response.subarray(i, i + 1)),
      { timeout: '1200ms' },
    );
    expectOutcome(result, { ok: OK_BEFORE, errors: { timeout: AFTER }, sent: 20 });
  });

  it('a server sending a 50 MB body: response_too_large from its Content-Length, before reading it', async () => {
    const bytes = 50 * 1000 * 1000;
    expect(bytes).toBeGreaterThan(MAX_RESPONSE_BODY_BYTES);
    const { result, transport } = await runFault(bodyOf(`HTTP/1.1 200 OK\r\nContent-Length: ${bytes}\r\n\r\n`, bytes));
    expectOutcome(result, { ok: OK_BEFORE, errors: { response_too_large: AFTER }, sent: 20 });
    expect(transport.protocolErrors).toBe(0);
  });

  it('a server sending a 50 MB body delimited by close: response_too_large once the limit is read', async () => {
    // Only the last request gets it: reading 32 MiB is the slow part.
    const { result } = await runFault(bodyOf('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n', 50 * 1000 * 1000), { from: 20 });
    expectOutcome(result, { ok: 19, errors: { response_too_large: 1 }, sent: 20 });
  });

  it('a server sending an endless chunked body: the requests time out', async () => {
    const chunk = `400\r\n${'x'.repeat(1024)}\r\n`;
    const { result } = await runFault(
      drip('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', 10, () => chunk),
      { timeout: '300ms' },
    );
    expectOutcome(result, { ok: OK_BEFORE, errors: { timeout: AFTER }, sent: 20 });
  });
});
