import { describe, expect, it } from 'vitest';
import { mean } from './incidents/support.ts';
import { runModel, type ModelRunResult } from './support/run.ts';

const SEEDS = [1, 2, 3] as const;

/** 1,000 requests/s for 20 s into api → a 4-shard cache (modulo: keys spread evenly), 50 ms client timeout, no retries. */
function stack(seed: number, timeline: unknown[]) {
  return {
    seed,
    arrivals: 'constant' as const,
    phases: [{ type: 'steady' as const, rate: 1000, duration: 20 }],
    keys: { count: 10_000 },
    topology: {
      entry: 'api',
      clientGroups: { mc: { instances: 4, pool: { maxIdle: 'inf' }, timeout: '50ms' } },
      services: { api: { workers: 'inf', serviceTime: '100us', calls: [{ to: 'cache', via: 'mc' }] } },
      caches: { cache: { shards: 4, workers: 4, serviceTime: '200us', warm: true } },
      timeline,
    },
  };
}

const gauge = (run: ModelRunResult, name: string) => run.recorder.intervals.map((g) => g[name] ?? 0);

describe('blips: time-limited faults on some shards', () => {
  it.each(SEEDS)('seed %i: full loss on shards 0-1 for 2 s fails half the requests then, none before or after', async (seed) => {
    const run = await runModel(stack(seed, [{ type: 'blip', at: '5s', for: '2s', cache: 'cache', shards: '0-1', loss: 1 }]));
    const goodput = gauge(run, 'goodputRps');
    expect(goodput[3]!).toBeGreaterThan(990);
    // Half the keys live on shards 0–1: ~500/s succeed inside the window.
    expect(mean(goodput, 5, 7)).toBeGreaterThan(400);
    expect(mean(goodput, 5, 7)).toBeLessThan(600);
    expect(goodput[9]!).toBeGreaterThan(990);
    expect(run.recorder.failures('timeout')).toBeGreaterThan(800);
    expect(run.recorder.failures('timeout')).toBeLessThan(1200);
    expect(run.recorder.firstFailureUs.get('timeout')!).toBeGreaterThanOrEqual(5_000_000);
  });

  it.each(SEEDS)('seed %i: a repeated outage (down every 5 s for 1 s) refuses requests to its shard in each window only', async (seed) => {
    const run = await runModel(stack(seed, [{ type: 'blip', at: '2s', for: '1s', every: '5s', cache: 'cache', shards: [3], down: true }]));
    const goodput = gauge(run, 'goodputRps');
    // A quarter of the keys, refused in 2–3, 7–8, 12–13 and 17–18 s.
    for (const second of [2, 7, 12, 17]) expect(goodput[second]!).toBeLessThan(800);
    for (const second of [4, 9, 14]) expect(goodput[second]!).toBeGreaterThan(990);
    expect(run.recorder.failures('connection_refused')).toBeGreaterThan(900);
    expect(run.recorder.failures('connection_refused')).toBeLessThan(1100);
    expect(run.recorder.failures('timeout')).toBe(0);
  });

  it.each(SEEDS)('seed %i: added latency on one shard slows its keys inside the window without failing them', async (seed) => {
    const quiet = await runModel(stack(seed, []));
    // 5 ms per op: the shard's 4 workers still serve 800/s, above its 250/s.
    const slow = await runModel(stack(seed, [{ type: 'blip', at: '5s', for: '5s', cache: 'cache', shards: '2', latency: '5ms' }]));
    expect(slow.details.requests.failed).toBe(0);
    // A quarter of the requests for a quarter of the run: ~6% take 5 ms more.
    expect(quiet.recorder.percentile(99)).toBeLessThan(2_000);
    expect(slow.recorder.percentile(99)).toBeGreaterThan(5_000);
    expect(slow.recorder.percentile(90)).toBeLessThan(2_000);
  });

  it('network events on one component must not overlap', () => {
    const event = (at: string) => ({ type: 'network', at, for: '2s', to: 'api', mode: 'drop' });
    expect(() => runModel(stack(1, [event('1s'), event('2s')]))).toThrow(/overlaps an earlier network event/);
  });

  it('a blip needs an effect, and a repeated one must be shorter than its period', () => {
    expect(() => runModel(stack(1, [{ type: 'blip', at: '1s', for: '1s', cache: 'cache', shards: '0' }]))).toThrow(/at least one of/);
    expect(() => runModel(stack(1, [{ type: 'blip', at: '1s', for: '5s', every: '5s', cache: 'cache', shards: '0', loss: 1 }]))).toThrow(/shorter than its period/);
  });
});
