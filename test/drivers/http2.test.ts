import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunStartError } from '../../src/driver/errors.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { makeProfile } from '../helpers/profile.ts';
import type { RunningTarget } from '../helpers/targets.ts';
import { makeTestPki, type TestPki } from '../helpers/tls.ts';
import { h2Frame, startRawH2Target } from '../helpers/raw-h2.ts';
import { startH2Target, startHttpsTarget } from '../helpers/tls-targets.ts';

const running: RunningTarget[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'stampede-h2-'));
let pki: TestPki;
beforeAll(async () => {
  pki = await makeTestPki(scratch);
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()));
});
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

let runs = 0;
async function run(input: Record<string, unknown>, target: string) {
  const profile = makeProfile({ name: 'h2', arrivals: 'constant', ...input } as never);
  return (await runProfile(profile, { target, outDir: join(scratch, String(runs++)) })).result;
}

const steady = (rate: number, duration: string) => [{ type: 'steady', rate, duration }];

describe('http.http2 (h2 framed over raw sockets, 127.0.0.1)', () => {
  it('runs h2 over TLS: templates become streams, statuses are classified, every request counted', async () => {
    const bodies: unknown[] = [];
    const target = await startH2Target({ tls: pki.server }, (stream, headers) => {
      const path = String(headers[':path']);
      let body = '';
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => (body += d));
      stream.on('end', () => {
        if (path === '/batch') bodies.push({ ...JSON.parse(body), type: headers['content-type'] });
        stream.respond({ ':status': path.startsWith('/missing/') ? 404 : 200 });
        stream.end('ok');
      });
    });
    running.push(target);
    const result = await run(
      {
        phases: steady(200, '1s'),
        mix: [
          { kind: 'batch', weight: 1, batch: 3 },
          { kind: 'missing', weight: 1 },
        ],
        keys: { count: 100, prefix: 'k' },
        http: {
          http2: true,
          connections: 2,
          pipelining: 16,
          tls: { ca: pki.files.ca },
          requests: {
            batch: { method: 'POST', path: '/batch', headers: { 'content-type': 'application/json', connection: 'keep-alive' }, body: '{"keys": {{keys:json}}}' },
            missing: { path: '/missing/{{key}}' },
          },
        },
      },
      target.url,
    );
    expect(result.requests.sent).toBe(200);
    expect(result.requests.ok).toBe(result.byKind['batch']!.requests);
    expect(result.errors['status_4xx']).toBe(result.byKind['missing']!.requests);
    expect(bodies.length).toBe(result.byKind['batch']!.requests);
    expect(bodies[0]).toMatchObject({ type: 'application/json', keys: [expect.stringMatching(/^k\d+$/), expect.any(String), expect.any(String)] });
    expect(result.driver.transport).toMatchObject({ connections: 2, connects: 2, protocolErrors: 0, tls: { verified: true } });
    expect(target.sessions()).toBe(2);
  });

  it('cannot start h2 against a certificate its CA did not sign, and says which TLS check failed', async () => {
    const target = await startH2Target({ tls: pki.server }, (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('ok');
    });
    running.push(target);
    const refused = run({ phases: steady(50, '0.3s'), http: { http2: true, connections: 2, tls: { ca: pki.files.wrongCa } } }, target.url);
    await expect(refused).rejects.toThrow(RunStartError);
    await expect(refused).rejects.toThrow(/no connection could be made.*last failure [A-Z_]*(CERT|VERIFY)[A-Z_]*: .*http\.tls\.ca/);
  });

  it('cannot start h2 against an https server that offers only HTTP/1.1, and says so', async () => {
    const target = await startHttpsTarget(pki.server, (_req, res) => res.end('ok'));
    running.push(target);
    const refused = run({ phases: steady(50, '0.3s'), http: { http2: true, connections: 1, tls: { ca: pki.files.ca } } }, target.url);
    await expect(refused).rejects.toThrow(/NO_APPLICATION_PROTOCOL.*does not offer HTTP\/2 over TLS \(ALPN h2\): set http\.http2: false/);
  });

  it('speaks h2c with prior knowledge to a cleartext http:// target', async () => {
    const target = await startH2Target({}, (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('ok');
    });
    running.push(target);
    const result = await run({ phases: steady(200, '0.5s'), http: { http2: true, connections: 1, pipelining: 8 } }, target.url);
    expect(result.requests.ok).toBe(100);
    expect(result.driver.transport).toMatchObject({ statusCodes: { '200': 100 }, connects: 1 });
    expect(target.streams()).toBe(100);
  });

  it('multiplexes several streams on one connection, never more than the server allows', async () => {
    // Each answer waits 50 ms, so at 100/s about 5 requests are due while earlier ones are open.
    const slow = (settings?: { maxConcurrentStreams: number }) =>
      startH2Target({ tls: pki.server, ...(settings && { settings }) }, (stream) => {
        setTimeout(() => {
          if (stream.closed) return;
          stream.respond({ ':status': 200 });
          stream.end('ok');
        }, 50);
      });
    const open = await slow();
    running.push(open);
    const http = { http2: true, connections: 1, pipelining: 8, tls: { ca: pki.files.ca } };
    const result = await run({ phases: steady(100, '0.5s'), http }, open.url);
    expect(result.requests.ok).toBe(50);
    expect(open.sessions()).toBe(1);
    expect(open.maxConcurrentStreams()).toBeGreaterThan(1);
    expect(open.maxConcurrentStreams()).toBeLessThanOrEqual(8);

    const limited = await slow({ maxConcurrentStreams: 2 });
    running.push(limited);
    // Two streams of 50 ms carry 40/s: at 100/s requests wait for a stream, and all are answered.
    const capped = await run({ phases: steady(100, '0.5s'), http }, limited.url);
    expect(capped.requests.ok).toBe(50);
    expect(limited.maxConcurrentStreams()).toBe(2);
    expect(capped.driver.transport).toMatchObject({ http2: { serverMaxConcurrentStreams: 2 } });
    expect(capped.generator!.waitedForConnection).toBeGreaterThan(0);
  });

  it('moves to a new session when the server sends GOAWAY, finishing the streams the old one took', async () => {
    // Like a server that limits requests per connection (nginx's keepalive_requests): GOAWAY after
    // every 30th stream of a session, without closing the socket.
    const perSession = new WeakMap<object, number>();
    const target = await startH2Target({}, (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('ok');
      const n = (perSession.get(stream.session!) ?? 0) + 1;
      perSession.set(stream.session!, n);
      if (n === 30) stream.session!.goaway();
    });
    running.push(target);
    const result = await run({ phases: steady(200, '1s'), http: { http2: true, connections: 2, pipelining: 8, timeout: '2s' } }, target.url);
    // A stream the server had not taken when it went away is refused (RST_STREAM): a reset, never left hanging.
    expect(result.requests.ok + (result.errors['reset'] ?? 0)).toBe(200);
    expect(result.requests.ok).toBeGreaterThan(0);
    expect(result.driver.transport!.connects).toBeGreaterThanOrEqual(200 / 30);
    expect(target.sessions()).toBe(result.driver.transport!.connects);
  });

  it('times out a stream the server never answers alone, while the others on its connection succeed', async () => {
    const target = await startH2Target({}, (stream, headers) => {
      if (headers[':path'] === '/hang') return;
      stream.respond({ ':status': 200 });
      stream.end('ok');
    });
    running.push(target);
    const result = await run(
      {
        phases: steady(100, '1s'),
        mix: [
          { kind: 'hang', weight: 1 },
          { kind: 'get', weight: 9 },
        ],
        http: { http2: true, connections: 1, pipelining: 100, timeout: '200ms', requests: { hang: { path: '/hang' } } },
      },
      target.url,
    );
    expect(result.errors['timeout']).toBe(result.byKind['hang']!.requests);
    expect(result.requests.ok).toBe(result.byKind['get']!.requests);
    expect(result.driver.transport).toMatchObject({ connects: 1 });
  });

  it('decodes every status through the server’s HPACK state: Huffman literals, its dynamic table filling and evicting', async () => {
    // nghttp2 indexes each new header value, so a changing one churns the server's 4 KB table.
    let n = 0;
    const target = await startH2Target({}, (stream, headers) => {
      const status = Number(String(headers[':path']).split('/')[2]);
      stream.respond({ ':status': status, 'x-sequence': `${n++}-${'v'.repeat(n % 200)}`, 'content-type': 'text/plain' });
      stream.end('ok');
    });
    running.push(target);
    const mix = [200, 201, 302, 404, 503].map((status) => ({ kind: `s${status}`, weight: 1 }));
    const requests = Object.fromEntries(mix.map((m) => [m.kind, { path: `/s/${m.kind.slice(1)}` }]));
    const result = await run({ phases: steady(400, '1s'), mix, http: { http2: true, connections: 1, pipelining: 32, requests } }, target.url);
    const expected = Object.fromEntries(mix.map((m) => [m.kind.slice(1), result.byKind[m.kind]!.requests]));
    expect(result.driver.transport).toMatchObject({ statusCodes: expected, connects: 1, protocolErrors: 0 });
    expect(n).toBe(400);
  });

  it('indexes :authority once per session, and stops when the server shrinks its HPACK table', async () => {
    const authorities = new Set<string>();
    const answer = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
      authorities.add(String(headers[':authority']));
      stream.respond({ ':status': 200 });
      stream.end('ok');
    };
    for (const settings of [undefined, { headerTableSize: 0 }]) {
      const target = await startH2Target({ ...(settings && { settings }) }, answer);
      running.push(target);
      const result = await run({ phases: steady(200, '0.5s'), http: { http2: true, connections: 2, pipelining: 8 } }, target.url);
      expect(result.requests.ok).toBe(100);
      expect([...authorities]).toEqual([`127.0.0.1:${target.port}`]);
      authorities.clear();
    }
  });

  it('sends bodies larger than the flow-control windows as the server opens them (WINDOW_UPDATE)', async () => {
    const received: number[] = [];
    const target = await startH2Target({}, (stream) => {
      let bytes = 0;
      stream.on('data', (d: Buffer) => (bytes += d.length));
      stream.on('end', () => {
        received.push(bytes);
        stream.respond({ ':status': 200 });
        stream.end('ok');
      });
    });
    running.push(target);
    // 100 KB each, four at a time: past both the stream's and the connection's initial 64 KB.
    const body = 'x'.repeat(100_000);
    const http = { http2: true, connections: 1, pipelining: 4, requests: { default: { method: 'POST', path: '/upload', body } } };
    const result = await run({ phases: steady(40, '0.5s'), http }, target.url);
    expect(result.requests.ok).toBe(20);
    expect(received).toEqual(Array.from({ length: 20 }, () => 100_000));
  });

  it('fails a malformed response (final headers without :status) as a protocol error, the session carrying on', async () => {
    // HEADERS (END_STREAM | END_HEADERS) whose block is the one literal field "x: y".
    const target = await startRawH2Target((stream) => h2Frame(1, 0x5, stream, Buffer.from([0x00, 0x01, 0x78, 0x01, 0x79])));
    running.push(target);
    const result = await run({ phases: steady(100, '0.3s'), http: { http2: true, connections: 1, pipelining: 8 } }, target.url);
    expect(result.errors['protocol_error']).toBe(30);
    expect(result.driver.transport).toMatchObject({ connects: 1, protocolErrors: 0 });
  });

  it('ends a session whose server breaks the framing (HEADERS on stream 0), counting a protocol error', async () => {
    const target = await startRawH2Target(() => h2Frame(1, 0x5, 0, Buffer.from([0x88])));
    running.push(target);
    const result = await run({ phases: steady(100, '0.3s'), http: { http2: true, connections: 1, pipelining: 8 } }, target.url);
    expect(result.requests.ok).toBe(0);
    expect(result.errors['protocol_error']).toBeGreaterThan(0);
    expect(result.driver.transport!.protocolErrors).toBeGreaterThan(0);
    expect(result.driver.transport!.connects).toBe(target.sessions());
  });

  it('shows a server that stalls S ms every P ms in its p99, as with HTTP/1.1', async () => {
    // See the HTTP/1.1 stall test (http.test.ts): a request intended at phase φ < S of a stall
    // finishes no earlier than S − φ after its intended time, so p99 ≥ S − 0.01·P, less 10%.
    const S = 100;
    const P = 500;
    const t0 = performance.now();
    const target = await startH2Target({ tls: pki.server }, (stream) => {
      const answer = () => {
        if (stream.closed) return;
        stream.respond({ ':status': 200 });
        stream.end('ok');
      };
      const phase = (performance.now() - t0) % P;
      if (phase < S) setTimeout(answer, S - phase);
      else answer();
    });
    running.push(target);
    const result = await run({ phases: steady(500, '2s'), http: { http2: true, connections: 2, pipelining: 64, tls: { ca: pki.files.ca } } }, target.url);
    expect(result.requests.ok).toBe(1000);
    expect(result.requests.dropped).toBe(0);
    expect(result.latencyUs.p99).toBeGreaterThanOrEqual(0.9 * (S - 0.01 * P) * 1000);
  });
});
