import { describe, expect, it } from 'vitest';
import { runModel, testProfile, type ModelRunResult } from './support/run.ts';

const SEEDS = [1, 2, 3] as const;
const gauge = (run: ModelRunResult, name: string) => run.recorder.intervals.map((g) => g[name] ?? 0);

/**
 * 1,000 reads/s over 4 shards (modulo: a quarter of the keys each), 600 KB values: 150 MB/s per
 * shard, more than a 1 Gb NIC sends (125 MB/s), a tenth of a 10 Gb one. 200 ms client timeout.
 */
function nics(seed: number, shardClasses: unknown[]) {
  return {
    seed,
    arrivals: 'poisson' as const,
    phases: [{ type: 'steady' as const, rate: 1000, duration: 20 }],
    keys: { count: 10_000 },
    topology: {
      entry: 'api',
      clientGroups: { mc: { instances: 10, pool: { maxIdle: 'inf' }, timeout: '200ms' } },
      services: { api: { workers: 'inf', serviceTime: '50us', calls: [{ to: 'cache', via: 'mc' }] } },
      caches: { cache: { shards: 4, workers: 4, serviceTime: '50us', warm: true, valueSize: 600_000, nic: 1_250_000_000, shardClasses } },
    },
  };
}

describe('shard classes: shards of one cache that differ', () => {
  it.each(SEEDS)('seed %i: even shards on 1 Gb NICs, odd on 10 Gb (Twitter 2018-04): the even shards’ keys time out, the odd ones’ do not', async (seed) => {
    const mixed = await runModel(nics(seed, [{ every: { mod: 2, rem: 0 }, nic: 125_000_000 }]));
    // The busiest NIC queue grows by ~0.2 s each second.
    expect(gauge(mixed, 'nicBacklogMs.cache')[15]!).toBeGreaterThan(1000);
    const success = mixed.details.requests.succeeded / mixed.details.requests.started;
    expect(success).toBeGreaterThan(0.4);
    expect(success).toBeLessThan(0.65);
    // The fix, one class gone: every shard on 10 Gb.
    const fixed = await runModel(nics(seed, []));
    expect(fixed.details.requests.failed).toBe(0);
    expect(Math.max(...gauge(fixed, 'nicBacklogMs.cache'))).toBeLessThan(50);
  });

  it.each(SEEDS)('seed %i: slower, fewer workers on shards "0-1" (an older generation): only their keys queue', async (seed) => {
    const run = await runModel({
      ...nics(seed, [{ shards: '0-1', workers: 1, serviceTime: '1200us' }]),
      phases: [{ type: 'steady' as const, rate: 3000, duration: 10 }],
    });
    // 750/s per shard against 833/s on the old ones (90% busy), 80,000/s on the new.
    expect(run.details.requests.failed).toBe(0);
    expect(run.recorder.percentile(40)).toBeLessThan(2_000);
    expect(run.recorder.percentile(75)).toBeGreaterThan(2_000);
  });

  it.each(SEEDS)('seed %i: per-shard faults and limits: shard 3 loses every request, shard 0 refuses beyond 5 connections', async (seed) => {
    const run = await runModel({
      ...nics(seed, [
        { shards: [3], packetLoss: 1 },
        { shards: '0', connectionLimit: 5 },
      ]),
      phases: [{ type: 'steady' as const, rate: 1000, duration: 10 }],
    });
    const cache = run.details.caches['cache'] as unknown as { lost: number };
    // A quarter of the keys on shard 3: all lost, each a client timeout.
    expect(run.recorder.failures('timeout') / run.details.requests.started).toBeGreaterThan(0.2);
    expect(run.recorder.failures('timeout')).toBe(cache.lost);
    expect(run.recorder.failures('connection_refused')).toBeGreaterThan(0);
  });

  it('a class selects by exactly one of shards, fraction or every; memory without the cache’s needs a limit', () => {
    expect(() => testProfile(nics(1, [{ shards: '0', fraction: 0.5, nic: 1 }]))).toThrow(/exactly one of/);
    expect(() => testProfile(nics(1, [{ fraction: 0.5, memory: { base: 10 } }]))).toThrow(/needs its `limit`/);
  });
});
