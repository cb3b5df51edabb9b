import { describe, expect, it } from 'vitest';
import type { HttpTransportReport } from '../../src/profile/protocols/http/spec.ts';
import type { MemcachedTransportReport } from '../../src/profile/protocols/memcached/spec.ts';
import type { RedisTransportReport } from '../../src/profile/protocols/redis/spec.ts';
import { connectionPoolOf, describeTransport, mergeTransportReports, PROTOCOLS, parseTarget, protocolOf, TARGET_FORMS } from '../../src/profile/protocols/registry.ts';

const http = (codes: Record<string, number>, streams?: number | null): HttpTransportReport => ({
  protocol: 'http',
  connections: 4,
  pipelining: 2,
  connects: 4,
  protocolErrors: 1,
  statusCodes: codes,
  ...(streams !== undefined && { http2: { serverMaxConcurrentStreams: streams } }),
});

const memcached = (hits: number, misses: number, keys: [number, number]): MemcachedTransportReport => ({
  protocol: 'memcached',
  hits,
  misses,
  hitRatio: hits / (hits + misses),
  shards: [
    { server: '127.0.0.1:1', keys: keys[0], share: keys[0] / (keys[0] + keys[1]) },
    { server: '127.0.0.1:2', keys: keys[1], share: keys[1] / (keys[0] + keys[1]) },
  ],
  shardSkew: (Math.max(...keys) / (keys[0] + keys[1])) * 2,
  connects: 2,
  protocolErrors: 0,
  serverErrors: { '0x0081': 1 },
  operations: { get: { ok: hits, notFound: misses, exists: 0, notStored: 0, nonNumeric: 0 }, add: { ok: 1, notFound: 0, exists: 2, notStored: 0, nonNumeric: 0 } },
});

describe('the protocol registry', () => {
  it('parses each protocol’s targets to its spec, and names every form in one message', () => {
    expect(PROTOCOLS.map((p) => p.name)).toEqual(['model', 'http', 'memcached', 'redis']);
    expect(
      ['model', 'http://127.0.0.1:8080', 'https://127.0.0.1', 'memcached://127.0.0.1:1,127.0.0.1:2', 'redis://127.0.0.1:6379,127.0.0.1:6380'].map(
        (t) => protocolOf(parseTarget(t)).name,
      ),
    ).toEqual(['model', 'http', 'http', 'memcached', 'redis']);
    expect(TARGET_FORMS).toBe('"model", http://host:port, https://host:port, memcached://host:port[,host:port…] or redis://host:port[,host:port…]');
    expect(() => parseTarget('rediss://127.0.0.1:6379')).toThrow(`unknown scheme "rediss"; expected ${TARGET_FORMS}`);
  });

  it('merges memcached reports by summing counts and taking ratio, shares and skew again from the sums', () => {
    const merged = mergeTransportReports([memcached(30, 10, [10, 30]), memcached(10, 50, [30, 30])]);
    expect(merged).toMatchObject({ hits: 40, misses: 60, hitRatio: 0.4, connects: 4, serverErrors: { '0x0081': 2 } });
    expect(merged.operations).toEqual({
      get: { ok: 40, notFound: 60, exists: 0, notStored: 0, nonNumeric: 0 },
      add: { ok: 2, notFound: 0, exists: 4, notStored: 0, nonNumeric: 0 },
    });
    expect(merged.shards.map((s) => [s.keys, s.share])).toEqual([
      [40, 0.4],
      [60, 0.6],
    ]);
    expect(merged.shardSkew).toBeCloseTo(1.2, 10);
    expect(merged.perWorker).toHaveLength(2);
  });

  it('merges redis reports by summing counts, error prefixes and commands, and taking ratio and shares again from the sums', () => {
    const redis = (hits: number, misses: number, keys: [number, number], errors: Record<string, number>): RedisTransportReport => ({
      ...memcached(hits, misses, keys),
      protocol: 'redis',
      serverErrors: errors,
      commands: { get: hits + misses, set: 3 },
      connections: 2,
      pipelining: 4,
    });
    const merged = mergeTransportReports([redis(30, 10, [10, 30], { ERR: 1 }), redis(10, 50, [30, 30], { ERR: 1, WRONGTYPE: 2 })]);
    expect(merged).toMatchObject({ hits: 40, misses: 60, hitRatio: 0.4, connects: 4, serverErrors: { ERR: 2, WRONGTYPE: 2 }, commands: { get: 100, set: 6 } });
    expect(merged.shards.map((s) => s.keys)).toEqual([40, 60]);
    expect(merged.perWorker).toHaveLength(2);
    // Each thread's connections carry its own pipelining depth: slots add up over the threads.
    expect(connectionPoolOf(merged)).toEqual({ connections: 4, slots: 16 });
    const { pipelining: _, ...unbounded } = redis(1, 1, [1, 1], {});
    expect(connectionPoolOf(unbounded)).toBeUndefined();
    expect(describeTransport(merged)).toEqual([
      'redis: 40 hits, 60 misses (hit ratio 40.0%); shard skew 1.20 over 2 servers',
      '4 connections × pipelining 4, 4 connects, 0 protocol errors; error replies ERR ×2, WRONGTYPE ×2',
      'commands: GET 100, SET 6',
    ]);
  });

  it('merges segments that ran worker threads as every thread, once', () => {
    const segment = mergeTransportReports([memcached(1, 1, [1, 1]), memcached(2, 2, [2, 2])]);
    const merged = mergeTransportReports([segment, memcached(4, 4, [4, 4])]);
    expect([merged.hits, merged.perWorker.length]).toEqual([7, 3]);
  });

  it('merges http reports: status codes summed, the lowest stream limit a server sent', () => {
    const merged = mergeTransportReports([http({ '200': 5, '503': 1 }, 100), http({ '200': 7 }, null), http({ '200': 1 }, 64)]);
    expect(merged).toMatchObject({ statusCodes: { '200': 13, '503': 1 }, connects: 12, protocolErrors: 3, http2: { serverMaxConcurrentStreams: 64 } });
    expect(connectionPoolOf(merged)).toEqual({ connections: 12, slots: 24 });
    expect(connectionPoolOf(mergeTransportReports([memcached(1, 1, [1, 1])]))).toBeUndefined();
  });

  it('describes a report in its protocol’s words', () => {
    expect(describeTransport(http({ '200': 5 }))).toEqual(['http: 4 connections, pipelining 2; 4 connects, 1 protocol errors', 'status codes: 200 ×5']);
    expect(describeTransport(memcached(30, 10, [10, 30]))[0]).toBe('memcached: 30 hits, 10 misses (hit ratio 75.0%); shard skew 1.50 over 2 servers');
    expect(describeTransport(memcached(30, 10, [10, 30]))[2]).toBe('operations: get 40 (10 not found), add 3 (2 exists)');
  });
});
