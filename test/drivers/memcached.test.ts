import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sharding } from '../../src/driver/sharded/sharding.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import type { MemcachedTransportReport } from '../../src/recorder/driver-report.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { gaugeCharts } from '../../src/report/charts.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { startMemcached, type RunningMemcached } from '../helpers/memcached.ts';
import { makeProfile } from '../helpers/profile.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-mc-'));
let servers: RunningMemcached[] = [];
beforeAll(async () => {
  servers = await Promise.all([startMemcached(), startMemcached()]);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

function memcachedReport(result: RunResult): MemcachedTransportReport {
  const transport = result.driver.transport;
  if (transport?.protocol !== 'memcached') throw new Error(`expected a memcached transport report, got ${transport?.protocol}`);
  return transport;
}

let runs = 0;
async function run(input: Parameters<typeof makeProfile>[0], target: string) {
  return (await runProfile(makeProfile(input), { target, outDir: join(scratch, String(runs++)) })).result;
}
const target = () => `memcached://${servers.map((s) => s.address).join(',')}`;

describe('memcached driver (real memcached on 127.0.0.1)', () => {
  it('sets then gets: misses before the set, hits after, per-shard load reported', async () => {
    const keys = { count: 200, prefix: 'user:' };
    const base = { arrivals: 'constant', keys, memcached: { hash: 'murmur3', distribution: 'modulo' } } as const;
    const cold = await run({ ...base, name: 'cold', phases: [{ type: 'steady', rate: 2000, duration: '0.5s' }], mix: [{ kind: 'get', weight: 1 }] } as never, target());
    expect(cold.requests.ok).toBe(1000);
    const coldStats = memcachedReport(cold);
    expect(coldStats.hits).toBe(0);
    expect(coldStats.misses).toBe(1000);
    // Fill every key (uniform over 200 keys, 4,000 sets covers them all), with values of 1–4 KiB.
    const fill = await run(
      {
        ...base,
        name: 'fill',
        keys: { ...keys, popularity: { type: 'uniform' } },
        phases: [{ type: 'steady', rate: 4000, duration: '1s' }],
        mix: [{ kind: 'set', weight: 1, valueSize: { type: 'uniform', min: 1024, max: 4096 } }],
      } as never,
      target(),
    );
    expect(fill.requests.ok).toBe(4000);
    const warm = await run(
      {
        ...base,
        name: 'warm',
        phases: [{ type: 'steady', rate: 2000, duration: '0.5s' }],
        mix: [
          { kind: 'get', weight: 3 },
          { kind: 'multi', weight: 1, batch: 20 },
        ],
        memcached: { ...base.memcached, operations: { multi: 'get' } },
      } as never,
      target(),
    );
    const stats = memcachedReport(warm);
    expect(warm.requests.failed).toBe(0);
    expect(stats.misses).toBe(0);
    expect(stats.hits).toBe(warm.byKind['get']!.requests + 20 * warm.byKind['multi']!.requests);
    expect(stats.shards).toHaveLength(2);
    expect(stats.shards[0]!.keys + stats.shards[1]!.keys).toBe(stats.hits);
    expect(warm.intervals.series[0]!.gauges).toHaveProperty('shardKeys.shard0');
    expect(warm.intervals.series[0]!.gauges['hitRatio.memcached']).toBe(1);
    const del = await run({ ...base, name: 'del', phases: [{ type: 'steady', rate: 1000, duration: '0.2s' }], mix: [{ kind: 'delete', weight: 1 }] } as never, target());
    expect(del.requests.ok).toBe(200);
  });

  it("a cold cache under production's hit ratio raises the hit-ratio flag, charts the ratio and prints it as a percentage", async () => {
    const profile = makeProfile({
      name: 'cold-ratio',
      arrivals: 'constant',
      phases: [{ type: 'steady', rate: 1000, duration: '1s' }],
      keys: { count: 100_000, prefix: 'never-set:' },
      mix: [{ kind: 'get', weight: 1 }],
      production: { hitRatio: 0.9 },
    } as never);
    const { result, analysis, summary } = await runProfile(profile, { target: target(), outDir: join(scratch, 'cold-ratio') });
    expect(result.gauges['hitRatio']).toMatchObject({ family: 'hit-ratio', unit: 'ratio' });
    const flag = analysis.flags.find((f) => f.id === 'hit-ratio');
    expect(flag?.evidence).toMatch(/^memcached: 0% in the test vs 90\.0% in production/);
    expect(summary).toMatch(/\| hitRatio\.memcached +\| +0% \|/);
    const chart = gaugeCharts(result.intervals.series, result.gauges).find((c) => c.title === 'Hit ratio');
    if (!chart) throw new Error('no hit-ratio chart');
    expect((chart.option['series'] as { name: string }[]).map((s) => s.name)).toContain('hitRatio.memcached');
    expect(chart.option['yAxis']).toContainEqual(expect.objectContaining({ name: 'ratio', max: 1 }));
  });

  it('FNV1-32 puts keys that differ only in their last byte on few shards; murmur3 spreads them (2018-04)', () => {
    const profile = makeProfile({ name: 'skew', phases: [{ type: 'steady', rate: 1, duration: 1 }], keys: { count: 10, prefix: 'user:1234567' } } as never);
    const keyspace = createSchedule(profile).plan.keyspace;
    const eight = Array.from({ length: 8 }, (_, i) => ({ host: '10.0.0.1', port: 11211 + i }));
    const spread = (hash: 'fnv1_32' | 'murmur3') => {
      const s = new Sharding(hash, 'ketama', eight, keyspace);
      return new Set(Array.from({ length: 10 }, (_, id) => s.shardOf(id))).size;
    };
    expect(spread('fnv1_32')).toBeLessThanOrEqual(2);
    expect(spread('murmur3')).toBeGreaterThanOrEqual(4);
  });

  it('--workers 2: disjoint halves of the schedule, hits and misses from both', async () => {
    const { result } = await runProfile(
      makeProfile({ name: 'mcw', arrivals: 'constant', phases: [{ type: 'steady', rate: 1000, duration: '2s' }], keys: { count: 200, prefix: 'user:' } } as never),
      { target: target(), outDir: join(scratch, 'workers'), workers: 2 },
    );
    expect(result.requests.ok).toBe(2000);
    const perWorker = (result.driver.transport?.perWorker ?? []).map((w) => (w.protocol === 'memcached' ? w : undefined)!);
    expect(perWorker).toHaveLength(2);
    expect(perWorker.reduce((a, w) => a + w.hits + w.misses, 0)).toBe(2000);
    // Two workers × two shards × one connection each, summed across workers.
    expect(Math.max(...result.intervals.series.map((i) => i.gauges['openConnections.memcached'] ?? 0))).toBe(4);
  });

  it('counts refused connections and keeps running when a shard is down', async () => {
    const down = await startMemcached();
    await down.stop();
    const result = await run(
      { name: 'down', arrivals: 'constant', phases: [{ type: 'steady', rate: 1000, duration: '0.3s' }], keys: { count: 100 } } as never,
      `memcached://${servers[0]!.address},${down.address}`,
    );
    // Requests to the down shard were refused while dialing: failed, and never sent.
    expect(result.requests.sent + result.requests.notSent).toBe(300);
    expect(result.requests.notSent).toBe(result.errors['refused']);
    expect(result.errors['refused']).toBeGreaterThan(0);
    expect(result.requests.ok).toBeGreaterThan(0);
    expect(result.requests.ok + (result.errors['refused'] ?? 0)).toBe(300);
  });
});
