import { describe, expect, it } from 'vitest';
import { rehearse, SEEDS } from './incidents/support.ts';

/**
 * Runaway state (issue 11, gap 8): the HotOS retry example with 1,000 retries per request. Every
 * request that times out comes back a thousand times and the server's queue grows without bound;
 * the simulator used to grow with it until Node's heap limit aborted the process (exit 134). The
 * CLI's exit code and files: test/cli/diverged.test.ts.
 */
describe('a model whose state grows without bound stops with the verdict DIVERGED', () => {
  const STORM = ['topology.clientGroups.clients.retries.count=1000', 'limits.maxModelState=200000'];

  it.each(SEEDS)('seed %i: 1,000 retries pass the state limit after the dip; with a retry token bucket they never do', { timeout: 60_000 }, async (seed) => {
    const storm = await rehearse('hotos-retry', seed, STORM);
    const diverged = storm.report.model!.diverged!;
    expect(diverged.limit).toBe(200_000);
    expect(diverged.state).toBeGreaterThan(200_000);
    // The dip starts at 20 s; the storm builds from there, long before the run's 90 s.
    expect(diverged.atUs).toBeGreaterThan(20_000_000);
    expect(diverged.atUs).toBeLessThan(60_000_000);
    expect(storm.recorder.failures('unfinished')).toBeGreaterThan(0);
    const budget = await rehearse('hotos-retry', seed, [...STORM, 'topology.clientGroups.clients.retries.tokenBucket={capacity: 10, perSuccess: 0.1}']);
    expect(budget.report.model!.diverged).toBeUndefined();
  });
});
