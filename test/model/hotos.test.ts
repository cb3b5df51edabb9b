import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './incidents/support.ts';

/**
 * The two metastability examples of Bronson et al., HotOS'21, as profiles: the system stays failed
 * after its trigger is gone at high load, and recovers below its hidden capacity or with the
 * paper's mitigations. Windows per model-notes §0: "stays failed" = success ≤ 10% with offered load
 * back at its pre-trigger level; "recovers" = ≥ 95%.
 */
describe('HotOS retry example (profiles/hotos-retry.yaml)', () => {
  const PROFILE = 'hotos-retry';
  // The dip (capacity ÷ 10) lasts 20–30 s.
  const success = (run: Awaited<ReturnType<typeof rehearse>>, rate: number, from: number, to: number) => mean(series(run, 'goodputRps'), from, to) / rate;

  it.each(SEEDS)('seed %i at 700/s (70 percent of capacity): stays failed long after the dip, with ~4 attempts per request', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed);
    expect(success(run, 700, 5, 20)).toBeGreaterThan(0.95);
    expect(success(run, 700, 40, 90)).toBeLessThanOrEqual(0.1);
    // Every request now fails its 100 ms timeout and retries 3 times: attempts ≈ 4 × offered, far
    // above the 1,000/s the service completes — throughput stays at capacity, goodput at zero.
    expect(mean(series(run, 'attemptsRps.clients'), 40, 90)).toBeGreaterThan(3.5 * 700);
    expect(mean(series(run, 'throughputRps'), 40, 90)).toBeGreaterThan(900);
  });

  it.each(SEEDS)('seed %i at 200/s (below the hidden capacity 1,000/4 = 250/s): the same dip heals', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['phases[0].rate=200']);
    // 4 attempts × 200/s = 800/s < 1,000/s: the backlog drains (in ~40 s here), then all succeed.
    expect(success(run, 200, 75, 90)).toBeGreaterThan(0.95);
  });

  it.each(SEEDS)('seed %i with LIFO: fresh attempts are served first and meet their deadline, through and after the dip', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.services.api.queue.discipline=lifo']);
    expect(success(run, 700, 40, 90)).toBeGreaterThan(0.95);
  });

  it.each(SEEDS)('seed %i with a retry token bucket (a 10 percent budget): attempts fall back to ~1× and the backlog drains', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.clientGroups.clients.retries.tokenBucket={capacity: 10, perSuccess: 0.1}']);
    expect(mean(series(run, 'attemptsRps.clients'), 40, 90)).toBeLessThan(1.1 * 700);
    expect(success(run, 700, 70, 90)).toBeGreaterThan(0.95);
  });

  it('dropping expired requests at dequeue (FIFO) is not enough: retries keep the service full of doomed work', { timeout: 30_000 }, async () => {
    const run = await rehearse(PROFILE, 1, ['topology.services.api.queue.dropAfter=100ms']);
    expect(success(run, 700, 40, 90)).toBeLessThan(0.2);
  });
});

describe('HotOS look-aside cache example (profiles/hotos-lookaside-cache.yaml)', () => {
  const PROFILE = 'hotos-lookaside-cache';
  // The cache is flushed at 20 s; the database serves 1,000 reads/s.

  it.each(SEEDS)('seed %i at 2,000/s: the cache never refills — database replies come after the timeout', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed);
    const hit = series(run, 'hitRatio.cache');
    expect(mean(hit, 5, 20)).toBeGreaterThan(0.99);
    // Whatever the first second filled is all there will be: no refill a minute later.
    expect(mean(hit, 80, 90)).toBeLessThan(mean(hit, 25, 35) + 0.03);
    // Misses (≥ 70% of 2,000/s) are more than the database's 1,000/s: its backlog only grows, so
    // every read that misses fails. Success is the hit ratio, far from recovered.
    const success = mean(series(run, 'goodputRps'), 40, 90) / 2000;
    expect(success).toBeLessThan(mean(hit, 40, 90) + 0.03);
    expect(success).toBeLessThan(0.35);
    expect(series(run, 'dbInFlight.db').at(-1)!).toBeGreaterThan(10_000);
  });

  it.each(SEEDS)('seed %i at 500/s (below the hidden capacity): the misses are served in time and the cache refills', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['phases[0].rate=500']);
    expect(mean(series(run, 'goodputRps'), 40, 90) / 500).toBeGreaterThan(0.95);
    // Only the first moments after the flush can fail (a burst of misses at once).
    expect(run.details.requests.failed).toBeLessThan(0.001 * run.details.requests.started);
  });

  it.each(SEEDS)('seed %i with read-through fill: late database replies still fill the cache, and it recovers', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.services.api.calls[0].onMiss.readThrough=true']);
    expect(mean(series(run, 'goodputRps'), 40, 90) / 2000).toBeGreaterThan(0.95);
    expect(Math.max(...series(run, 'dbInFlight.db').slice(40))).toBeLessThan(100);
  });
});
