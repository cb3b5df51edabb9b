import { describe, expect, it } from 'vitest';
import { runModel, testProfile, type ModelRunResult } from './support/run.ts';

const SEEDS = [1, 2, 3] as const;

/**
 * One cache shard (4 workers × 2 ms: 2,000 ops/s) behind a service; the cache client times out at
 * 20 ms and does not retry. `cache` and `extra` override the shard's settings and add sections.
 */
function shard(seed: number, rate: number, cache: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    seed,
    arrivals: 'poisson' as const,
    phases: [{ type: 'steady' as const, rate, duration: 20 }],
    keys: { count: 1000 },
    topology: {
      entry: 'api',
      clientGroups: { mc: { instances: 10, pool: { maxIdle: 'inf', connectCost: '100us' }, timeout: '20ms' } },
      services: { api: { workers: 'inf', serviceTime: '50us', calls: [{ to: 'cache', via: 'mc' }] } },
      caches: { cache: { workers: 4, serviceTime: { type: 'exponential', mean: '2ms' }, warm: true, ...cache } },
      ...extra,
    },
  };
}

type CacheFigures = { connectionsHighWater: number; acceptQueued: number; acceptOverflows: number; acceptedFromQueue: number; monitorRestarts: number; restarts: number };
const cacheOf = (run: ModelRunResult) => run.details.caches['cache'] as unknown as CacheFigures;
const gauge = (run: ModelRunResult, name: string) => run.recorder.intervals.map((g) => g[name] ?? 0);

describe('connection lifecycle', () => {
  it.each(SEEDS)('seed %i: a timed-out client closes its connection, but the shard holds the fd until it reaches the queued request', async (seed) => {
    // 3,000 ops/s on 2,000/s of capacity: the queue grows, every request times out in it.
    const run = await runModel(shard(seed, 3000));
    const serverFds = gauge(run, 'shardConnectionsMax.cache');
    const clientOpen = gauge(run, 'openConnections.mc');
    // The clients hold ~60 ms worth of attempts (20 ms timeout × 3,000/s); the shard, every
    // request still in its queue (≈ 1,000 more each second).
    expect(serverFds[15]!).toBeGreaterThan(5000);
    expect(clientOpen[15]!).toBeLessThan(200);
    expect(run.details.clientGroups['mc']!.closes).toBeGreaterThan(0);
  });

  it.each(SEEDS)('seed %i: at the fd limit dials park in the accept queue, then overflow — refused, or dropped into a client timeout', async (seed) => {
    const refuse = await runModel(shard(seed, 3000, { connectionLimit: 50, backlog: 20, backlogOverflow: 'refuse' }));
    const drop = await runModel(shard(seed, 3000, { connectionLimit: 50, backlog: 20, backlogOverflow: 'drop' }));
    for (const run of [refuse, drop]) {
      const cache = cacheOf(run);
      expect(cache.connectionsHighWater).toBe(50);
      expect(cache.acceptQueued).toBeGreaterThan(0);
      expect(cache.acceptedFromQueue).toBeGreaterThan(0);
      expect(cache.acceptOverflows).toBeGreaterThan(0);
      expect(Math.max(...gauge(run, 'acceptQueueMax.cache'))).toBeLessThanOrEqual(20);
    }
    expect(refuse.recorder.failures('connection_refused')).toBeGreaterThan(0);
    expect(drop.recorder.failures('connection_refused')).toBe(0);
    expect(drop.recorder.failures('timeout')).toBeGreaterThan(refuse.recorder.failures('timeout'));
  });

  it.each(SEEDS)('seed %i: without a backlog a dial at the fd limit is refused at once', async (seed) => {
    const run = await runModel(shard(seed, 3000, { connectionLimit: 50 }));
    expect(cacheOf(run).acceptQueued).toBe(0);
    expect(run.recorder.failures('connection_refused')).toBeGreaterThan(0);
  });
});

describe('health-check monitor', () => {
  const MONITOR = { monitors: { health: { cache: 'cache', every: '500ms', timeout: '100ms', failures: 3, restartTime: '2s' } } };
  // The shard stalls for 3 s (every op +1 s) at 8 s.
  const STALL = { timeline: [{ type: 'latency', at: '8s', until: '11s', cache: 'cache', add: '1s' }] };

  it.each(SEEDS)('seed %i: probes fail in a stall, the monitor restarts the shard — refused while down, cold after', async (seed) => {
    const run = await runModel(shard(seed, 500, {}, { ...MONITOR, ...STALL }));
    const restarts = gauge(run, 'monitorRestarts.health');
    expect(restarts[7]).toBe(0);
    expect(restarts.at(-1)!).toBeGreaterThan(0);
    expect(cacheOf(run).monitorRestarts).toBe(restarts.at(-1));
    expect(run.recorder.failures('connection_refused')).toBeGreaterThan(0);
    // Warm before; the restarted shard is empty, so the hit ratio dips and then climbs back.
    const hits = gauge(run, 'hitRatio.cache');
    expect(hits[5]).toBe(1);
    expect(Math.min(...hits.slice(9))).toBeLessThan(0.9);
  });

  it.each(SEEDS)('seed %i: a healthy shard is never restarted; without the monitor the stall only delays', async (seed) => {
    const healthy = await runModel(shard(seed, 500, {}, MONITOR));
    expect(Math.max(...gauge(healthy, 'monitorRestarts.health'))).toBe(0);
    expect(healthy.recorder.failures('connection_refused')).toBe(0);
    const unmonitored = await runModel(shard(seed, 500, {}, STALL));
    expect(cacheOf(unmonitored).restarts).toBe(0);
    expect(unmonitored.recorder.failures('connection_refused')).toBe(0);
  });

  it.each(SEEDS)('seed %i: an outage blip fails its probes too — the monitor restarts the shard it could not reach', async (seed) => {
    const outage = { timeline: [{ type: 'blip', at: '8s', for: '3s', cache: 'cache', shards: '0', down: true }] };
    const run = await runModel(shard(seed, 500, {}, { ...MONITOR, ...outage }));
    expect(cacheOf(run).monitorRestarts).toBeGreaterThan(0);
    expect(gauge(run, 'monitorRestarts.health')[7]).toBe(0);
  });

  it('a monitor must name a cache', () => {
    expect(() => testProfile(shard(1, 100, {}, { monitors: { health: { cache: 'api' } } }))).toThrow(/expected the name of a cache/);
  });
});
