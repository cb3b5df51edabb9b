import { describe, expect, it } from 'vitest';
import { runModel, type TestProfile } from './support/run.ts';

/** Pools, timeouts, retries with jitter, a sharded cache with look-aside reads and a slowing database. */
const busy = (seed: number): TestProfile => ({
  seed,
  arrivals: 'poisson',
  phases: [{ type: 'spike', base: 2000, peak: 8000, rise: 1, hold: 2, decay: 1, duration: 6 }],
  batch: { type: 'uniform', min: 1, max: 20 },
  keys: { count: 50_000, popularity: { type: 'zipf', s: 1.1 } },
  topology: {
    entry: 'api',
    caller: 'users',
    clientGroups: {
      users: { instances: 10, timeout: '200ms', retries: { count: 1, backoff: { base: '10ms' } } },
      mc: {
        instances: 4,
        pool: { maxOpen: 8, maxIdle: 4, connectCost: '100us', checkoutTimeout: '20ms' },
        timeout: '20ms',
        fanoutLimit: 8,
        retries: { count: 2, backoff: { base: '1ms', max: '5ms' } },
      },
      store: { instances: 4, pool: { maxOpen: 16 }, timeout: '100ms' },
    },
    services: {
      api: {
        workers: 64,
        queue: { limit: 500 },
        serviceTime: { type: 'exponential', mean: '200us' },
        calls: [{ to: 'cache', via: 'mc', perItem: true, onMiss: { to: 'db', via: 'store' } }],
      },
    },
    caches: { cache: { shards: 8, workers: 2, serviceTime: { type: 'exponential', mean: '100us' }, capacity: 2000 } },
    databases: { db: { concurrency: 32, latency: { type: 'lognormal', median: '2ms', sigma: 0.6 }, slowdown: 1, queue: { limit: 2000 } } },
  },
});

describe('determinism', () => {
  it('the same profile and seed give the identical run: event trace hash and every counter', async () => {
    const a = await runModel(busy(1));
    const b = await runModel(busy(1));
    expect(a.details.events).toBeGreaterThan(100_000);
    expect(a.details.traceHash).toBe(b.details.traceHash);
    expect(JSON.stringify(a.details)).toBe(JSON.stringify(b.details));
    expect(Buffer.from(a.recorder.latencyCounts.buffer).equals(Buffer.from(b.recorder.latencyCounts.buffer))).toBe(true);
  });

  it('a different seed gives a different run', async () => {
    const a = await runModel(busy(1));
    const c = await runModel(busy(2));
    expect(c.details.traceHash).not.toBe(a.details.traceHash);
  });

  it('the busy topology exercises every path (so the hash covers them)', async () => {
    const { details } = await runModel(busy(1));
    const mc = details.clientGroups['mc']!;
    expect(mc.retries).toBeGreaterThan(0);
    expect(mc.timeouts + mc.checkoutTimeouts).toBeGreaterThan(0);
    expect(mc.closes).toBeGreaterThan(0);
    expect(details.caches['cache']!.misses).toBeGreaterThan(0);
    expect(details.databases['db']!.completed).toBeGreaterThan(0);
  });
});
