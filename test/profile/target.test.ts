import { describe, expect, it } from 'vitest';
import { parseProfileText } from '../../src/profile/index.ts';
import { parseTarget, targetHosts } from '../../src/profile/protocols/registry.ts';
import { isLoopbackHost, isPathOnTarget, TargetError } from '../../src/profile/target.ts';
import { INLINE_TOPOLOGY, fixture, issueAt, issuesOf } from './helpers.ts';

describe('parseTarget', () => {
  it.each([
    ['model', { kind: 'model', text: 'model' }],
    ['http://127.0.0.1:8080', { kind: 'http', text: 'http://127.0.0.1:8080', host: '127.0.0.1', port: 8080 }],
    ['http://127.0.0.1:8080/', { kind: 'http', host: '127.0.0.1', port: 8080 }],
    ['http://localhost', { kind: 'http', host: 'localhost', port: 80 }],
    ['http://[::1]:9000', { kind: 'http', host: '::1', port: 9000, tls: false }],
    ['https://127.0.0.1:8443', { kind: 'http', host: '127.0.0.1', port: 8443, tls: true }],
    ['https://localhost/', { kind: 'http', host: 'localhost', port: 443, tls: true }],
    ['memcached://127.0.0.1:11211', { kind: 'memcached', servers: [{ host: '127.0.0.1', port: 11211 }] }],
    [
      'memcached://a:1, b:2,[::1]:3/',
      {
        kind: 'memcached',
        servers: [
          { host: 'a', port: 1 },
          { host: 'b', port: 2 },
          { host: '::1', port: 3 },
        ],
      },
    ],
  ])('parses %s', (text, expected) => {
    expect(parseTarget(text)).toMatchObject(expected);
  });

  it('gives an http target its URL, keeping the text as written', () => {
    const spec = parseTarget('http://127.0.0.1:8080');
    expect(spec.kind === 'http' && spec.url.host).toBe('127.0.0.1:8080');
    expect(spec.text).toBe('http://127.0.0.1:8080');
  });

  it.each([
    ['', /expected "model", http/],
    ['Model', /expected "model", http/],
    ['gopher://127.0.0.1:1', /unknown scheme "gopher"/],
    ['https://127.0.0.1:8443/api', /expected https:\/\/host:port with no path/],
    ['http://127.0.0.1:99999', /port 99999 is out of range 1–65535/],
    ['http://127.0.0.1:0', /port 0 is out of range/],
    ['http://', /expected http:\/\/host:port with no path/],
    ['http://127.0.0.1:8080/api', /no path/],
    ['memcached://', /no servers/],
    ['memcached://127.0.0.1:11211,', /expected host:port, got ""/],
    ['memcached://127.0.0.1', /expected host:port, got "127.0.0.1"/],
    ['memcached://127.0.0.1:70000', /port 70000 is out of range/],
  ])('rejects %j', (text, message) => {
    expect(() => parseTarget(text)).toThrow(TargetError);
    expect(() => parseTarget(text)).toThrow(message);
  });
});

describe('target: in a profile', () => {
  const profile = (target: string) => `name: t\ntarget: ${target}\nphases: [{ type: steady, rate: 1, duration: 1s }]\n${INLINE_TOPOLOGY}`;

  it('is checked by the same parser, with the error at the target line', async () => {
    const issues = await issuesOf(parseProfileText(profile('memcached://127.0.0.1:99999'), fixture('inline.yaml')));
    expect(issueAt(issues, 'target')).toMatchObject({ line: 2, message: expect.stringContaining('port 99999 is out of range') });
  });

  it('carries the protocol defaults, also for sections the profile leaves out', async () => {
    const loaded = await parseProfileText(profile('model'), fixture('inline.yaml'));
    expect(loaded.http).toEqual({
      connections: 8,
      pipelining: 1,
      http2: false,
      tls: { insecure: false },
      timeout: 10_000_000,
      inFlightCap: 10_000,
      requests: { default: { method: 'GET', path: '/', headers: {} } },
    });
    expect(loaded.memcached).toEqual({ hash: 'murmur3', distribution: 'modulo', connectionsPerShard: 1, timeout: 1_000_000, inFlightCap: 10_000, operations: {} });
  });

  it('takes TLS options for an https:// target, and a client certificate only as cert and key together', async () => {
    const loaded = await parseProfileText(`${profile('https://127.0.0.1:8443')}http:\n  http2: true\n  tls: { ca: ca.pem, servername: api.internal }\n`, fixture('inline.yaml'));
    expect(loaded.http).toMatchObject({ http2: true, tls: { ca: 'ca.pem', servername: 'api.internal', insecure: false } });
    const issues = await issuesOf(parseProfileText(`${profile('https://127.0.0.1:8443')}http:\n  tls: { cert: client.pem }\n`, fixture('inline.yaml')));
    expect(issueAt(issues, 'http.tls.key')).toMatchObject({ message: 'a client certificate needs both cert and key' });
  });

  it('keeps a GET / default template beside the kinds a profile templates itself', async () => {
    const text = `${profile('http://127.0.0.1:8080')}http:\n  connections: 2\n  requests:\n    get: { path: '/item/{{key}}' }\n`;
    const loaded = await parseProfileText(text, fixture('inline.yaml'));
    expect(loaded.http.connections).toBe(2);
    expect(loaded.http.requests).toEqual({ default: { method: 'GET', path: '/', headers: {} }, get: { method: 'GET', path: '/item/{{key}}', headers: {} } });
  });
});

describe('loopback hosts and paths on the target', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.255.255.254', '127.1', '0x7f.0.0.1', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['10.0.0.1', '128.0.0.1', '1.127.0.0', '0.0.0.0', '::', '::ffff:10.0.0.1', 'example.com', 'localhost.', 'foo.localhost', 'localhost.localdomain'])(
    '%s is not loopback (names other than localhost are never resolved)',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );

  it.each([
    ['memcached://127.0.0.1.:11211', '127.0.0.1'],
    ['memcached://0x7f.1:11211', '127.0.0.1'],
    ['memcached://LOCALHOST:11211', 'localhost'],
    ['memcached://[::1]:11211', '::1'],
    ['http://127.0.0.1.:8080', '127.0.0.1'],
    ['https://2130706433:8443', '127.0.0.1'],
  ])('%s dials the canonical host the guard approved (%s), never a name to resolve', (target, host) => {
    const [dialled] = targetHosts(parseTarget(target));
    expect(dialled).toBe(host);
    expect(isLoopbackHost(dialled!)).toBe(true);
  });

  it('lists every host a target sends to', () => {
    expect(targetHosts(parseTarget('model'))).toEqual([]);
    expect(targetHosts(parseTarget('http://[::1]:8080'))).toEqual(['::1']);
    expect(targetHosts(parseTarget('memcached://a:1,b:2,a:3'))).toEqual(['a', 'b']);
  });

  it.each(['/stats', '/a/b?x=//y', '/%2F%2Fhost'])('%s stays on the target', (path) => {
    expect(isPathOnTarget(path)).toBe(true);
  });

  it.each(['//other-host:9000/x', '/\\other-host/x', 'http://other-host/x', 'stats', '/a b', '/a\r\nHost: x', ''])('%s does not', (path) => {
    expect(isPathOnTarget(path)).toBe(false);
  });
});
