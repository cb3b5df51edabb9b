import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/schedule/rng.ts';
import { ZipfSampler } from '../../src/schedule/zipf.ts';
import { stampedeAsync } from '../helpers/cli.ts';
import { startMemcached, type RunningMemcached } from '../helpers/memcached.ts';

/*
 * Model and real agree on a replay (issue 22, deliverable 6): one trace replayed into the model and
 * into a real memcached given the same 4 MB of item memory gets hit ratios within 2 points. The
 * trace's keys outgrow that memory (~40k distinct keys set, ~21.8k items fit), so eviction decides
 * the hit ratio, not the keyspace. Every get and set of the trace reaches memcached as it is; the
 * model's cache executes the same ops (no look-aside fill: the trace's own sets fill it).
 * Load: 200,000 requests to one memcached on 127.0.0.1 at 16,000 a second, on one connection.
 */

const REQUESTS = 200_000;
const PER_SECOND = 4000;
const SPEED = 4;
const VALUE_BYTES = 100;

const scratch = mkdtempSync(join(tmpdir(), 'stampede-agreement-'));
let server: RunningMemcached;
beforeAll(async () => {
  server = await startMemcached({ memoryMb: 4 });
});
afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** 70% gets, 30% sets of 100-byte values, keys Zipf(0.8) over 200k ids, 4,000 requests a trace second. */
function writeTrace(file: string): void {
  const rng = new Rng(7);
  const zipf = new ZipfSampler(200_000, 0.8, rng);
  const lines: string[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const key = `key:${String(zipf.next()).padStart(6, '0')}`;
    const set = rng.next() < 0.3;
    lines.push(`${Math.floor(i / PER_SECOND)},${key},${key.length},${set ? VALUE_BYTES : 0},1,${set ? 'set' : 'get'},0`);
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** The replay's base: one shard of 4 MB item memory and 100-byte values, as memcached -m 4 holds them. */
const BASE = `name: agreement
phases: [{ type: steady, rate: 1, duration: 1s }]
memcached: { connectionsPerShard: 1, timeout: 5s }
topology:
  entry: app
  caller: users
  clientGroups:
    users: { instances: 1, timeout: 5s }
    to-cache: { instances: 1, timeout: 5s }
  services:
    app: { workers: inf, calls: [{ to: cache, via: to-cache }] }
  caches:
    cache: { shards: 1, workers: inf, serviceTime: 5us, itemMemory: { limitMb: 4 }, valueSize: ${VALUE_BYTES} }
`;

async function replay(trace: string, base: string, target: string, out: string): Promise<Record<string, unknown>> {
  const run = await stampedeAsync(['trace', 'replay', trace, '--profile', base, '--target', target, '--speed', String(SPEED), '--out', out, '--quiet'], 240_000);
  expect(run.stderr).not.toMatch(/error/i);
  return JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Record<string, unknown>;
}

describe('model and real memcached agree on a replayed trace', () => {
  it('hit ratio within 2 points with the same item memory (4 MB), the working set beyond it', { timeout: 300_000 }, async () => {
    const trace = join(scratch, 'trace.csv');
    writeTrace(trace);
    const base = join(scratch, 'base.yaml');
    writeFileSync(base, BASE);
    const model = await replay(trace, base, 'model', join(scratch, 'model'));
    const real = await replay(trace, base, `memcached://${server.address}`, join(scratch, 'memcached'));
    const cache = (model['driver'] as { model: { caches: { cache: { gets: number; hits: number; evictions: number } } } }).model.caches.cache;
    const transport = (real['driver'] as { transport: { hits: number; misses: number } }).transport;
    const requests = real['requests'] as { sent: number; failed: number };
    expect(requests).toMatchObject({ sent: REQUESTS, failed: 0 });
    // The memory is the limit on both: the model evicted, and memcached would have needed more.
    expect(cache.evictions).toBeGreaterThan(5000);
    const modelRatio = cache.hits / cache.gets;
    const realRatio = transport.hits / (transport.hits + transport.misses);
    expect(transport.hits + transport.misses).toBe(cache.gets);
    expect(Math.abs(modelRatio - realRatio), `model ${(modelRatio * 100).toFixed(1)}% vs memcached ${(realRatio * 100).toFixed(1)}%`).toBeLessThan(0.02);
  });
});
