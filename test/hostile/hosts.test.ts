import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createSecureServer } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stampedeAsync } from '../helpers/cli.ts';
import { makeTestPki, type TestPki } from '../helpers/tls.ts';
import { memcachedResponse } from '../faults/fault-servers.ts';

/*
 * Hostile inputs, class "hosts": a loopback address spelled another way is dialled as the
 * canonical address the loopback guard approved (the dial never resolves the spelling), or refused;
 * a name that is not loopback is refused (exit 2) before any DNS lookup. Every dial and lookup the
 * CLI makes is seen: a preload (NODE_OPTIONS=--require) logs each dns.lookup call, and the targets
 * listen on :: (IPv4 and IPv6 loopback both) and record the Host header, :authority or peer.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-hostile-hosts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Appends every host net.connect (through dns.lookup) resolves to $DNS_LOG. */
const DNS_HOOK = join(scratch, 'dns-hook.cjs');
writeFileSync(
  DNS_HOOK,
  "const dns = require('node:dns'); const fs = require('node:fs'); const lookup = dns.lookup;\n" +
    'dns.lookup = function (host, ...rest) { fs.appendFileSync(process.env.DNS_LOG, host + "\\n"); return lookup.call(this, host, ...rest); };\n',
);

/** A loopback spelling, and the host it is dialled as (the Host header's, without the port); undefined: refused. */
const LOOPBACK_SPELLINGS: readonly [spelling: string, canonical: string | undefined][] = [
  ['127.0.0.1.', '127.0.0.1'],
  ['LOCALHOST', 'localhost'],
  ['2130706433', '127.0.0.1'],
  ['0x7f.1', '127.0.0.1'],
  ['127.1', '127.0.0.1'],
  ['[::1]', '[::1]'],
  // A trailing dot makes a DNS name absolute: not the name `localhost` the guard trusts unresolved.
  ['localhost.', undefined],
];
const REMOTE_NAMES = ['example.com', '127.0.0.1.nip.io'];

interface Target {
  port: number;
  /** Host headers (http/1.1), :authority (h2) or "memcached" per request, as they arrived. */
  seen: string[];
  close(): Promise<void>;
}

async function listen(server: Server | ReturnType<typeof createHttpServer>, seen: string[]): Promise<Target> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function httpTarget(pki: TestPki | undefined): Promise<Target> {
  const seen: string[] = [];
  const handler = (req: { headers: { host?: string } }, res: { end(body: string): void }) => {
    seen.push(req.headers.host ?? '');
    res.end('ok');
  };
  return listen(pki ? createHttpsServer({ key: pki.server.key, cert: pki.server.cert }, handler) : createHttpServer(handler), seen);
}

async function h2Target(pki: TestPki): Promise<Target> {
  const seen: string[] = [];
  const server = createSecureServer({ key: pki.server.key, cert: pki.server.cert });
  server.on('stream', (stream, headers) => {
    seen.push(String(headers[':authority']));
    stream.respond({ ':status': 200 });
    stream.end('ok');
  });
  // An http2 secure server is a tls.Server: it has listen, close and 'connection' like a net.Server.
  return listen(server as unknown as Server, seen);
}

/** A memcached of the binary protocol that misses every get. */
function memcachedTarget(): Promise<Target> {
  const seen: string[] = [];
  const server = createTcpServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      while (pending.length >= 24 && pending.length >= 24 + pending.readUInt32BE(8)) {
        const header = Buffer.from(pending.subarray(0, 24));
        pending = pending.subarray(24 + header.readUInt32BE(8));
        seen.push('memcached');
        socket.write(memcachedResponse(header, 0x0001, 'Not found'));
      }
    });
  });
  return listen(server, seen);
}

interface Protocol {
  name: string;
  url(host: string, port: number): string;
  profileExtra: string;
  target(): Promise<Target>;
  /** What the target records for a request dialled as `canonical`:`port`. */
  recorded(canonical: string, port: number): string;
}

let pki: TestPki;
const PROTOCOLS: Protocol[] = [
  { name: 'http', url: (h, p) => `http://${h}:${p}`, profileExtra: '', target: () => httpTarget(undefined), recorded: (h, p) => `${h}:${p}` },
  {
    name: 'https',
    url: (h, p) => `https://${h}:${p}`,
    profileExtra: 'http: { tls: { ca: ca.pem, servername: api.test } }\n',
    target: () => httpTarget(pki),
    recorded: (h, p) => `${h}:${p}`,
  },
  {
    name: 'h2',
    url: (h, p) => `https://${h}:${p}`,
    profileExtra: 'http: { http2: true, tls: { ca: ca.pem, servername: api.test } }\n',
    target: () => h2Target(pki),
    recorded: (h, p) => `${h}:${p}`,
  },
  { name: 'memcached', url: (h, p) => `memcached://${h}:${p}`, profileExtra: 'keys: { count: 100 }\n', target: memcachedTarget, recorded: () => 'memcached' },
];

beforeAll(async () => {
  pki = await makeTestPki(scratch);
  writeFileSync(join(scratch, 'ca.pem'), pki.caCert);
});

let runs = 0;
/** `stampede run` of 1 s at 20 rps (no SLO) to `target`, with every DNS lookup logged. */
async function runAgainst(protocol: Protocol, target: string) {
  const n = ++runs;
  const profile = join(scratch, `p${n}.yaml`);
  writeFileSync(profile, `name: hosts\nphases: [{ type: steady, rate: 20, duration: 1s }]\n${protocol.profileExtra}`);
  const out = join(scratch, `run-${n}`);
  const dnsLog = join(scratch, `dns-${n}.log`);
  writeFileSync(dnsLog, '');
  const run = await stampedeAsync(['run', profile, '--target', target, '--out', out, '--quiet'], 120_000, {
    NODE_OPTIONS: `--require ${DNS_HOOK}`,
    DNS_LOG: dnsLog,
  });
  return { ...run, out, lookups: readFileSync(dnsLog, 'utf8').split('\n').filter(Boolean) };
}

/** Up to two runs at a time (two cores shared with other suites). */
async function inPairs<T, R>(items: readonly T[], each: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await each(items[i]!);
  };
  await Promise.all([worker(), worker()]);
  return results;
}

describe.each(PROTOCOLS)('$name targets', (protocol) => {
  it('dial a loopback spelling as the canonical address the guard approved, or refuse it (exit 2)', { timeout: 600_000 }, async () => {
    // A target per run: two run at once, and each must see only its own requests.
    const outcomes = await inPairs(LOOPBACK_SPELLINGS, async ([spelling, canonical]) => {
      const target = await protocol.target();
      try {
        return { spelling, canonical, port: target.port, run: await runAgainst(protocol, protocol.url(spelling, target.port)), seen: target.seen };
      } finally {
        await target.close();
      }
    });
    for (const { spelling, canonical, port, run, seen } of outcomes) {
      const what = `${protocol.name} ${spelling}: ${run.stderr}`;
      if (canonical === undefined) {
        expect(run.stderr, what).toBe(
          `stampede: --target: ${spelling} is not a loopback host; stampede sends traffic only to 127.0.0.0/8, ::1 and localhost unless told otherwise (to load it on purpose: --allow-remote ${spelling}, or STAMPEDE_ALLOW_REMOTE=${spelling})\n`,
        );
        expect(run.status, what).toBe(2);
        expect(existsSync(run.out), what).toBe(false);
        expect(run.lookups, what).toEqual([]);
        continue;
      }
      expect(existsSync(join(run.out, 'analysis.json')), `${what} (exit ${run.status})`).toBe(true);
      // The run happened: exit 0 (no SLO), or 1 when a busy machine made the generator the limit (INVALID, its reasons the generator's).
      const analysis = JSON.parse(readFileSync(join(run.out, 'analysis.json'), 'utf8')) as { verdict: string; generator?: { saturated: boolean } };
      expect([analysis.verdict, run.status], what).toEqual(analysis.generator?.saturated ? ['INVALID', 1] : ['NO SLO', 0]);
      const result = JSON.parse(readFileSync(join(run.out, 'result.json'), 'utf8')) as { requests: { ok: number; failed: number } };
      expect(result.requests.failed, what).toBe(0);
      expect(result.requests.ok, what).toBeGreaterThan(0);
      // Every request reached the target under the canonical name; only `localhost` is looked up (it is a name), never the spelling.
      expect(new Set(seen), what).toEqual(new Set([protocol.recorded(canonical, port)]));
      expect(run.lookups, what).toEqual(canonical === 'localhost' ? expect.arrayContaining(['localhost']) : []);
      expect(
        run.lookups.filter((host) => host !== 'localhost'),
        what,
      ).toEqual([]);
    }
  });

  it('refuse a name that is not loopback before any DNS lookup: exit 2, no folder', { timeout: 300_000 }, async () => {
    const outcomes = await inPairs(REMOTE_NAMES, async (name) => ({ name, run: await runAgainst(protocol, protocol.url(name, 8080)) }));
    for (const { name, run } of outcomes) {
      expect(run.stderr, `${protocol.name} ${name}`).toMatch(new RegExp(`^stampede: --target: ${name.replaceAll('.', '\\.')} is not a loopback host; `));
      expect(run.status).toBe(2);
      expect(existsSync(run.out)).toBe(false);
      expect(run.lookups).toEqual([]);
    }
  });
});
