import { describe, expect, it } from 'vitest';
import { rehearse, SEEDS, series } from './support.ts';

/**
 * Bluesky, April 2026, second half (incidents.md §1): port exhaustion → a blocking log line per
 * failed call → OS threads → OOM → restart into the same TIME_WAIT. Profile: bluesky-oom-spiral.yaml.
 */
describe('bluesky-oom-spiral', () => {
  const HEAVY_START_S = 10;
  const RUN_S = 40;
  const RESTART_S = 10;
  const BASE_THREADS = 150;

  it.each(SEEDS)('seed %i without the limit: OOM, and again after every restart while TIME_WAIT lasts', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse('bluesky-oom-spiral', seed);
    const process = (run.details.services['dataplane'] as unknown as { process: { oomKills: number; threadsHighWater: number } }).process;
    const kills = series(run, 'oomKills.dataplane');
    // The first batch (10 s) closes ~16.5k connections into TIME_WAIT, the second (10.4 s) runs
    // out of ports; its thousands of dial errors queue as many blocking writers (the log file takes
    // 50k lines/s), each a 0.25 MB thread: over the limit within the second batch.
    expect(kills[HEAVY_START_S - 1]).toBe(0);
    expect(kills[HEAVY_START_S + 1]).toBe(1);
    // TIME_WAIT (60 s) outlives every restart in the run, and the restarted process's first
    // background RPCs fail to dial and log: it dies again as soon as it is up. One kill per
    // restart delay from the first: at least (run − heavy start) / restart delay.
    expect(process.oomKills).toBeGreaterThanOrEqual(Math.floor((RUN_S - HEAVY_START_S) / RESTART_S));
    // Threads go from ~150 to thousands (seed: ~1,500) before each kill.
    expect(process.threadsHighWater).toBeGreaterThan(10 * BASE_THREADS);
    // After the first kill the service does no useful work: it is down or failing.
    const goodput = series(run, 'goodputRps').slice(HEAVY_START_S + 1);
    expect(Math.max(...goodput)).toBeLessThan(0.05 * 2000);
    expect(run.recorder.failures('connection_refused')).toBeGreaterThan(0);
    // Ports stay pinned: the host's TIME_WAIT is not reset by a restart.
    expect(Math.min(...series(run, 'timeWaitConnections.appview').slice(HEAVY_START_S + 1))).toBeGreaterThan(0.9 * 28_232);
  });

  it.each(SEEDS)('seed %i with errgroup.SetLimit(50): no error, no log line, no OOM', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse('bluesky-oom-spiral', seed, ['phases[0].duration=25s', 'topology.clientGroups.memcache.fanoutLimit=50']);
    const process = (run.details.services['dataplane'] as unknown as { process: { oomKills: number; threadsHighWater: number; logWrites: number } }).process;
    expect(run.details.requests.failed).toBe(0);
    expect(process.oomKills).toBe(0);
    expect(process.logWrites).toBe(0);
    expect(process.threadsHighWater).toBe(BASE_THREADS);
  });

  it.each(SEEDS)('seed %i with a sampled error counter: the ports still run out, but the process survives', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse('bluesky-oom-spiral', seed, ['phases[0].duration=25s', 'topology.services.dataplane.errorLog.every=1000']);
    const process = (run.details.services['dataplane'] as unknown as { process: { oomKills: number } }).process;
    expect(process.oomKills).toBe(0);
    // The heavy caller's batches still fail to dial (all but the first): the mitigation is not the fix.
    const heavy = run.recorder.perClient.get(1)!;
    expect(heavy.failed).toBeGreaterThanOrEqual(heavy.ok + heavy.failed - 1);
    expect(run.recorder.failures('dial_error')).toBe(run.details.requests.failed);
  });
});
