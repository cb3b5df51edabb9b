import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './support.ts';

/**
 * Black Friday (incidents.md §3), the operators' fix as a timeline event: at 120 s, with every
 * front-end thread already stuck on the scheduling pool, an operator sets that pool's max to 0.
 * (The no-fix and checkout-timeout runs are in test/model/profiles.test.ts.)
 */
describe('black-friday: an operator switches scheduling off mid-run', () => {
  const BROWSE = 3920;

  it.each(SEEDS)('seed %i: stuck at 3,000 threads before the switch, browse pages back after it', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse('black-friday', seed, ['topology.timeline=[{type: set, at: 120s, clientGroup: fe-scheduling, maxOpen: 0}]']);
    const threads = series(run, 'busyWorkers.frontend');
    expect(threads[115]).toBe(3000);
    // New delivery orders now fail at once with pool_disabled; threads already waiting drain as
    // the ~500 open connections finish (~25 scheduling calls/s), so recovery takes a while.
    expect(run.recorder.failures('pool_disabled')).toBeGreaterThan(0);
    expect(Math.max(...threads.slice(225))).toBeLessThan(1500);
    expect(mean(series(run, 'goodputRps'), 225, 240)).toBeGreaterThan(0.95 * BROWSE);
  });
});
