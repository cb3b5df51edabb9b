import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/profile/protocols/registry.ts';
import { createDriver } from '../../src/driver/index.ts';
import type { Driver } from '../../src/driver/types.ts';
import type { MemcachedTransportReport } from '../../src/recorder/driver-report.ts';
import { type RunningMemcached, startMemcached } from '../helpers/memcached.ts';
import { type FaultServer, memcachedResponse, startFaultyMemcached } from './fault-servers.ts';
import { expectOutcome, runAgainstFault } from './run-check.ts';

/*
 * Each case: 10 gets at 5/s (constant arrivals), one connection, the first three answered and the
 * fault from the fourth on. memcached pipelines without a limit, so requests are 200 ms apart: each
 * meets the fault on its own even when a busy machine stalls the process for a while.
 */
const REQUESTS = 10;
const RATE = 5;
const FROM = 4;
const OK_BEFORE = FROM - 1;
const AFTER = REQUESTS - OK_BEFORE;

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function runAgainst(address: string, driver?: Driver) {
  const target = `memcached://${address}`;
  const result = await runAgainstFault(target, { requests: REQUESTS, rate: RATE, section: { timeout: '300ms' }, ...(driver && { driver }) });
  return { result, transport: result.driver.transport as MemcachedTransportReport };
}

/** The memcached driver, with `after(n)` called as the n-th request completes. */
function watchedDriver(target: string, after: (completed: number) => void): Driver {
  const driver = createDriver(parseTarget(target));
  return {
    target: driver.target,
    run: (context) => {
      const recorder = context.recorder;
      const complete = recorder.complete.bind(recorder);
      let completed = 0;
      recorder.complete = (...args) => {
        complete(...args);
        after(++completed);
      };
      return driver.run(context);
    },
  };
}

describe('memcached driver against faulty servers (127.0.0.1)', () => {
  it('a real memcached killed mid-run: the requests after it are refused and never sent', async () => {
    const memcached: RunningMemcached = await startMemcached();
    stops.push(() => memcached.stop());
    // Killed (SIGKILL: no graceful shutdown) as the third request completes: the fourth, 200 ms
    // later, finds nothing listening.
    const driver = watchedDriver(`memcached://${memcached.address}`, (n) => {
      if (n === OK_BEFORE) process.kill(memcached.pid, 'SIGKILL');
    });
    const { result } = await runAgainst(memcached.address, driver);
    expectOutcome(result, { ok: OK_BEFORE, errors: { refused: AFTER }, sent: OK_BEFORE, notSent: AFTER });
  });

  const badFrames: [string, (request: Buffer) => Buffer][] = [
    ['garbage (bad magic)', () => Buffer.from('\u0000\u00ff this is no memcached frame at all, just bytes', 'latin1')],
    [
      'the wrong opaque',
      (request) => {
        const response = memcachedResponse(request, 0x0001, 'Not found');
        response.writeInt32BE(response.readInt32BE(12) + 1, 12);
        return response;
      },
    ],
    ['the wrong opcode', (request) => memcachedResponse(Buffer.concat([Buffer.of(0x80, 0x01), request.subarray(2)]), 0x0000, '')],
    [
      'an absurd body length',
      (request) => {
        const response = memcachedResponse(request, 0x0001, 'Not found');
        response.writeUInt32BE(0xfffffff0, 8);
        return response;
      },
    ],
  ];

  it.each(badFrames)('a fake memcached answering with %s: protocol_error for each, each connection closed and counted', async (_, frame) => {
    const server = await startFaultyMemcached(FROM, (socket: Socket, request) => socket.write(frame(request)));
    stops.push(() => server.close());
    const { result, transport } = await runAgainst(`127.0.0.1:${server.port}`);
    expectOutcome(result, { ok: OK_BEFORE, errors: { protocol_error: AFTER }, sent: REQUESTS });
    expect(transport.protocolErrors).toBe(AFTER);
  });

  it('a fake memcached answering twice: the first answer counts, the extra one closes the connection as a protocol error', async () => {
    const server: FaultServer = await startFaultyMemcached(FROM, (socket, request) => {
      const miss = memcachedResponse(request, 0x0001, 'Not found');
      socket.write(Buffer.concat([miss, miss]));
    });
    stops.push(() => server.close());
    const { result, transport } = await runAgainst(`127.0.0.1:${server.port}`);
    expectOutcome(result, { ok: REQUESTS, errors: {}, sent: REQUESTS });
    expect(transport.protocolErrors).toBe(AFTER);
  });
});
