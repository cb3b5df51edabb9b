import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';
import { memcachedStats, startMemcached, type RunningMemcached } from '../helpers/memcached.ts';

/*
 * A --workers run's hits and misses against memcached's own count. The workers' transport reports
 * once merged by keeping worker 0's hits and misses: half the gets went missing from result.json
 * (3,955 reported where memcached counted 8,007).
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-mc-counts-'));
let servers: RunningMemcached[] = [];
beforeAll(async () => {
  servers = await Promise.all([startMemcached(), startMemcached()]);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

/** get_hits + get_misses of one server, from its `stats`: every key a get asked for. */
async function keysLookedUp(port: number): Promise<number> {
  const stats = await memcachedStats(port);
  return stats.get('get_hits')! + stats.get('get_misses')!;
}

const lookedUpOnAll = async () => (await Promise.all(servers.map((s) => keysLookedUp(s.port)))).reduce((a, b) => a + b, 0);

// Sets fill some keys so that both hits and misses occur; batched gets count one lookup per key.
const PROFILE = `name: mc-counts
seed: 7
arrivals: constant
phases:
  - { type: steady, rate: 1000, duration: 2s }
keys: { count: 300, prefix: 'counts:' }
mix:
  - { kind: set, weight: 1, valueSize: { type: fixed, value: 64 } }
  - { kind: get, weight: 2 }
  - { kind: multi, weight: 1, batch: 5 }
memcached:
  operations: { multi: get }
`;

describe('--workers 2 on real memcached, through the CLI', () => {
  it('reports as many hits + misses as memcached counted gets', async () => {
    const file = join(scratch, 'mc-counts.yaml');
    writeFileSync(file, PROFILE);
    const target = `memcached://${servers.map((s) => s.address).join(',')}`;
    const before = await lookedUpOnAll();
    const out = join(scratch, 'run');
    const run = stampede(['run', file, '--target', target, '--workers', '2', '--out', out, '--quiet']);
    expect(run.stderr).not.toMatch(/Error/);
    const counted = (await lookedUpOnAll()) - before;
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    const transport = result.driver.transport;
    expect(transport.protocol).toBe('memcached');
    expect(transport.perWorker).toHaveLength(2);
    expect(counted).toBeGreaterThan(1000);
    expect(transport.hits + transport.misses).toBe(counted);
    expect(transport.hits).toBeGreaterThan(0);
    expect(transport.misses).toBeGreaterThan(0);
    expect(transport.hitRatio).toBeCloseTo(transport.hits / counted, 10);
    // The shards' keys are the lookups and sets of both workers, so their shares sum to one.
    const shardKeys = transport.shards.reduce((a: number, s: { keys: number }) => a + s.keys, 0);
    const perWorkerKeys = transport.perWorker.flatMap((w: { shards: { keys: number }[] }) => w.shards).reduce((a: number, s: { keys: number }) => a + s.keys, 0);
    expect(shardKeys).toBe(perWorkerKeys);
    expect(transport.shards.reduce((a: number, s: { share: number }) => a + s.share, 0)).toBeCloseTo(1, 10);
    // The summary describes the merged report, in the memcached spec's words.
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain(`- memcached: ${transport.hits} hits, ${transport.misses} misses`);
  });
});
