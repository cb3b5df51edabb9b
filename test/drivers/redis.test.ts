import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProfile } from '../../src/pipeline/run.ts';
import type { RedisTransportReport } from '../../src/profile/protocols/redis/spec.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { stampede } from '../helpers/cli.ts';
import { makeProfile } from '../helpers/profile.ts';
import { redisCommand, redisCounts, startRedis, type RunningRedis } from '../helpers/redis.ts';
import { expectOutcome, runAgainstFault } from '../faults/run-check.ts';

/*
 * The Redis driver against real redis-servers on 127.0.0.1: what it counts (hits, misses, each
 * command's replies) is what the servers' own INFO counted; error replies, malformed frames and a
 * refused server are outcomes of the run, never a crash. Every run is a few hundred requests.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-redis-'));
let servers: RunningRedis[] = [];
const stubs: Server[] = [];
beforeAll(async () => {
  servers = await Promise.all([startRedis(), startRedis(), startRedis()]);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const stub of stubs) stub.close();
  rmSync(scratch, { recursive: true, force: true });
});

function redisReport(result: RunResult): RedisTransportReport {
  const transport = result.driver.transport;
  if (transport?.protocol !== 'redis') throw new Error(`expected a redis transport report, got ${transport?.protocol}`);
  return transport;
}

let runs = 0;
async function run(input: Parameters<typeof makeProfile>[0], target: string) {
  return (await runProfile(makeProfile(input), { target, outDir: join(scratch, String(runs++)) })).result;
}
const targetOf = (list: RunningRedis[]) => `redis://${list.map((s) => s.address).join(',')}`;

/** The servers' counts summed, so a run over several shards is checked against all of them. */
async function summedCounts(list: RunningRedis[]) {
  const each = await Promise.all(list.map((s) => redisCounts(s.port)));
  return {
    hits: each.reduce((n, c) => n + c.hits, 0),
    misses: each.reduce((n, c) => n + c.misses, 0),
    calls: (command: string) => each.reduce((n, c) => n + c.calls(command), 0),
  };
}

describe('redis driver (real redis-server on 127.0.0.1)', () => {
  it('GET, SET and batched gets over two shards: hits, misses and each command’s calls equal the servers’ INFO', async () => {
    const two = servers.slice(0, 2);
    const before = await summedCounts(two);
    const result = await run(
      {
        name: 'redis-mix',
        arrivals: 'constant',
        phases: [{ type: 'steady', rate: 2000, duration: '0.5s' }],
        keys: { count: 200, prefix: 'user:', popularity: { type: 'uniform' } },
        mix: [
          { kind: 'set', weight: 2, valueSize: 64, ttl: '60s' },
          { kind: 'get', weight: 2 },
          { kind: 'multi', weight: 1, batch: 10 },
          { kind: 'mget', weight: 1, batch: 3 },
        ],
        // Two in flight a connection: MGETs and SETs wait their turn whole, never cut at a flush.
        redis: { hash: 'murmur3', distribution: 'ketama', operations: { multi: 'get' }, pipelining: 2 },
      } as never,
      targetOf(two),
    );
    const after = await summedCounts(two);
    const stats = redisReport(result);
    expect(result.errors).toEqual({});
    expect(result.requests.ok).toBe(1000);
    expect(stats).toMatchObject({ protocolErrors: 0, connections: 2, pipelining: 2 });
    expect(stats.hits).toBe(after.hits - before.hits);
    expect(stats.misses).toBe(after.misses - before.misses);
    expect(stats.hits).toBeGreaterThan(0);
    expect(stats.misses).toBeGreaterThan(0);
    expect(stats.hits + stats.misses).toBe(result.byKind['get']!.requests + 10 * result.byKind['multi']!.requests + 3 * result.byKind['mget']!.requests);
    // One call per GET and SET; one MGET per shard a batch touched.
    expect(stats.commands.get).toBe(result.byKind['get']!.requests);
    expect(stats.commands.set).toBe(result.byKind['set']!.requests);
    expect(stats.commands.get).toBe(after.calls('get') - before.calls('get'));
    expect(stats.commands.set).toBe(after.calls('set') - before.calls('set'));
    expect(stats.commands.mget).toBe(after.calls('mget') - before.calls('mget'));
    expect(stats.commands.mget).toBeGreaterThanOrEqual(result.byKind['multi']!.requests + result.byKind['mget']!.requests);
    expect(stats.shards.map((s) => s.server)).toEqual(two.map((s) => s.address));
    expect(stats.shards[0]!.keys + stats.shards[1]!.keys).toBe(stats.hits + stats.misses + stats.commands.set!);
    expect(result.intervals.series[0]!.gauges).toHaveProperty('shardKeys.shard1');
    expect(result.intervals.series[0]!.gauges).toHaveProperty('hits.redis');
    expect(result.intervals.series[0]!.gauges).toHaveProperty('hitRatio.redis');
  });

  it('an error reply (a GET of a key holding a list) fails that request as a server error, counted by its prefix', async () => {
    const server = servers[0]!;
    expect(await redisCommand(server.port, 'RPUSH', 'listy:0', 'x')).toBe(':1\r\n');
    const result = await run(
      {
        name: 'redis-wrongtype',
        arrivals: 'constant',
        phases: [{ type: 'steady', rate: 200, duration: '0.5s' }],
        keys: { count: 1, prefix: 'listy:' },
        mix: [{ kind: 'get', weight: 1 }],
      } as never,
      targetOf([server]),
    );
    const stats = redisReport(result);
    expect(result.errors).toEqual({ server_error: 100 });
    expect(stats.serverErrors).toEqual({ WRONGTYPE: 100 });
    expect(stats.protocolErrors).toBe(0);
    expect(stats.commands.get).toBe(100);
    expect(stats.hits + stats.misses).toBe(0);
  });

  it('a server that answers garbage: the connection is a protocol error, its requests fail, the run writes its folder', async () => {
    const stub = createServer((socket: Socket) => socket.on('data', () => socket.write('?this is no RESP frame\r\n')));
    stubs.push(stub);
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const port = (stub.address() as { port: number }).port;
    // 10 gets at 5/s, 200 ms apart: each meets the garbage on a connection of its own (the driver reconnects).
    const result = await runAgainstFault(`redis://127.0.0.1:${port}`, { requests: 10, rate: 5, section: { timeout: '300ms' } });
    expectOutcome(result, { ok: 0, errors: { protocol_error: 10 }, sent: 10 });
    const stats = redisReport(result);
    expect(stats.protocolErrors).toBe(10);
    expect(stats.connects).toBe(10);
  });

  it('redis.pipelining: never more commands on a connection than its depth; the rest wait, and the wait is in their latency', async () => {
    // A server that answers each GET with a nil 10 ms after it arrives, noting how many it holds unanswered per connection.
    const DELAY_MS = 10;
    const most: number[] = [];
    let received = 0;
    const stub = createServer((socket: Socket) => {
      const at = most.push(0) - 1;
      let held = 0;
      let tail = '';
      socket.on('data', (chunk: Buffer) => {
        const text = tail + chunk.toString('latin1');
        const gets = text.split('GET\r\n').length - 1;
        tail = text.slice(-4);
        received += gets;
        held += gets;
        most[at] = Math.max(most[at]!, held);
        setTimeout(() => {
          held -= gets;
          if (!socket.destroyed) socket.write('$-1\r\n'.repeat(gets));
        }, DELAY_MS);
      });
    });
    stubs.push(stub);
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const port = (stub.address() as { port: number }).port;
    // 2 connections × depth 3 carry at most 600 GETs/s through a 10 ms server: at 1,000/s the rest queue.
    const result = await run(
      {
        name: 'redis-depth',
        arrivals: 'constant',
        phases: [{ type: 'steady', rate: 1000, duration: '0.5s' }],
        keys: { count: 50, prefix: 'k:' },
        mix: [{ kind: 'get', weight: 1 }],
        redis: { connectionsPerShard: 2, pipelining: 3, timeout: '5s' },
      } as never,
      `redis://127.0.0.1:${port}`,
    );
    expect(result.errors).toEqual({});
    expect(result.requests.ok).toBe(500);
    expect(received).toBe(500);
    expect(most).toHaveLength(2);
    expect(Math.max(...most)).toBeLessThanOrEqual(3);
    const stats = redisReport(result);
    expect(stats).toMatchObject({ connections: 2, pipelining: 3, misses: 500 });
    expect(result.generator!.waitedForConnection).toBeGreaterThan(0);
    // Counted from the intended send: the queue's wait (hundreds of ms by the end) is in the latency, not only the server's 10 ms.
    expect(result.generator!.sendLatenessUs.p99).toBeGreaterThan(50_000);
    expect(result.latencyUs.p99).toBeGreaterThan(result.generator!.sendLatenessUs.p99);
  });

  it('a shard that refuses connections: its requests are refused and never sent, the others are answered', async () => {
    const down = await startRedis();
    await down.stop();
    const result = await run(
      { name: 'redis-down', arrivals: 'constant', phases: [{ type: 'steady', rate: 1000, duration: '0.3s' }], keys: { count: 100 } } as never,
      `redis://${servers[0]!.address},${down.address}`,
    );
    expect(result.requests.notSent).toBe(result.errors['refused']);
    expect(result.errors['refused']).toBeGreaterThan(0);
    expect(result.requests.ok).toBeGreaterThan(0);
    expect(result.requests.ok + (result.errors['refused'] ?? 0)).toBe(300);
  });

  it('the ring timeline: a server added mid-run takes keys from then on, and none once removed again', async () => {
    const three = servers;
    const before = await redisCounts(three[2]!.port);
    const { result } = await runProfile(
      makeProfile({
        name: 'redis-ring',
        arrivals: 'constant',
        phases: [{ type: 'steady', rate: 1000, duration: '3s' }],
        keys: { count: 200, prefix: 'ring:' },
        mix: [
          { kind: 'get', weight: 4 },
          { kind: 'set', weight: 1 },
        ],
        redis: { hash: 'murmur3', distribution: 'ketama' },
        topology: {
          entry: 'api',
          services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: '1ms' }, calls: [{ to: 'cache', via: 'api-to-cache' }] } },
          clientGroups: { 'api-to-cache': { instances: 1 } },
          caches: { cache: { shards: 2, hash: 'murmur3', placement: 'ketama', workers: 4, serviceTime: { type: 'exponential', mean: '100us' } } },
          timeline: [
            { type: 'addShards', at: '1s', cache: 'cache', count: 1 },
            { type: 'removeShards', at: '2s', cache: 'cache', count: 1 },
          ],
        },
      } as never),
      { target: targetOf(three), outDir: join(scratch, 'ring'), intervalUs: 250_000 },
    );
    const [added, removed] = result.timeline!;
    expect(added).toMatchObject({ type: 'addShards', status: 'applied' });
    expect(added!.label).toContain(`${three[2]!.address} joins the ring`);
    expect(removed).toMatchObject({ type: 'removeShards', status: 'applied' });
    expect(removed!.label).toContain(`${three[2]!.address} leaves the ring`);
    const series = result.intervals.series;
    const keysOf = (p: (typeof series)[number]) => p.gauges['shardKeys.shard2'] ?? 0;
    // Intervals wholly before the join, and from the one after the removal on: none; between: some.
    expect(series.filter((p) => p.tMs + 250 <= added!.actualMs!).every((p) => keysOf(p) === 0)).toBe(true);
    expect(series.filter((p) => p.tMs >= added!.actualMs! && p.tMs + 250 <= removed!.actualMs!).some((p) => keysOf(p) > 0)).toBe(true);
    expect(series.filter((p) => p.tMs > removed!.actualMs!).every((p) => keysOf(p) === 0)).toBe(true);
    const stats = redisReport(result);
    const after = await redisCounts(three[2]!.port);
    // The joined server's own counts are the keys the driver sent it.
    expect(after.hits + after.misses - before.hits - before.misses + after.calls('set') - before.calls('set')).toBe(stats.shards[2]!.keys);
    expect(stats.shards[2]!.keys).toBeGreaterThan(0);
  });

  it('the CLI, --workers 2: one merged report whose hits and misses are the servers’ keyspace hits and misses', async () => {
    const two = servers.slice(0, 2);
    const dir = join(scratch, 'cli');
    const profile = join(scratch, 'cli.yaml');
    writeFileSync(
      profile,
      [
        'name: redis-cli',
        'arrivals: constant',
        'phases: [{ type: steady, rate: 1000, duration: 1s }]',
        'keys: { count: 300, prefix: "cli:" }',
        'mix: [{ kind: get, weight: 3 }, { kind: set, weight: 1 }, { kind: batch, weight: 1, batch: 5 }]',
        'redis: { connectionsPerShard: 2 }',
        '',
      ].join('\n'),
    );
    const before = await summedCounts(two);
    const r = stampede(['run', profile, '--target', targetOf(two), '--out', dir, '--workers', '2', '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
    const after = await summedCounts(two);
    const stats = redisReport(result);
    expect(result.requests.ok).toBe(1000);
    const perWorker = (result.driver.transport?.perWorker ?? []) as RedisTransportReport[];
    expect(perWorker).toHaveLength(2);
    // The one merge sums the threads' counts.
    expect(perWorker.reduce((n, w) => n + w.hits + w.misses, 0)).toBe(stats.hits + stats.misses);
    expect(stats.hits + stats.misses).toBe(after.hits + after.misses - before.hits - before.misses);
    expect(stats.hits).toBe(after.hits - before.hits);
    expect(stats.commands.set).toBe(after.calls('set') - before.calls('set'));
    expect(stats.connects).toBe(8);
    expect(stats.hitRatio).toBeCloseTo(stats.hits / (stats.hits + stats.misses), 10);
  });

  it('the CLI: a target none of whose servers listens is a run that could not start (exit 3), saying so', async () => {
    const down = await startRedis();
    await down.stop();
    const profile = join(scratch, 'down.yaml');
    writeFileSync(profile, 'name: redis-down\nphases: [{ type: steady, rate: 10, duration: 1s }]\n');
    const r = stampede(['run', profile, '--target', `redis://${down.address}`, '--out', join(scratch, 'down'), '--quiet']);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(`on ${down.address}: ECONNREFUSED`);
    expect(r.stderr).toContain('is Redis running and listening there?');
  });
});
