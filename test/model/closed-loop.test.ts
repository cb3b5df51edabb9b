import { describe, expect, it } from 'vitest';
import { ProfileError } from '../../src/profile/issues.ts';
import { parseProfileText } from '../../src/profile/load.ts';
import { mean } from './incidents/support.ts';
import { runModel } from './support/run.ts';

/**
 * What a closed-loop test hides, shown in the model on the same seed: 10 workers of 10 ms
 * (1,000/s) at 500/s, and a dip (capacity ÷ 20) from 10 s to 15 s. Open loop, requests keep
 * coming at 500/s and queue: seconds of latency for thousands of requests. Closed loop, 50 users
 * thinking 90 ms (≈ 500/s while replies take ~10 ms) stop sending while they wait: the offered
 * rate falls with the capacity and the stall shows in only ~50 requests.
 */
function stall(seed: number, closed: boolean) {
  return {
    seed,
    arrivals: 'poisson' as const,
    phases: [{ type: 'steady' as const, rate: closed ? 1000 : 500, duration: 30 }],
    topology: {
      entry: 'api',
      caller: 'users',
      clientGroups: { users: closed ? { closedLoop: { users: 50, thinkTime: '90ms' } } : {} },
      services: { api: { workers: 10, serviceTime: { type: 'exponential', mean: '10ms' } } },
      timeline: [{ type: 'dip', start: '10s', every: '1h', for: '5s', service: 'api', slowdown: 20 }],
    },
  };
}

describe('closed-loop users (clientGroups.<caller>.closedLoop)', () => {
  const offered = (run: Awaited<ReturnType<typeof runModel>>, from: number, to: number) =>
    mean(
      run.recorder.intervals.map((g) => g['attemptsRps.users'] ?? 0),
      from,
      to,
    );

  it.each([1, 2, 3])('seed %i: a stall lowers the offered rate and hides its latency, against open loop at the same rate', { timeout: 30_000 }, async (seed) => {
    const open = await runModel(stall(seed, false));
    const closed = await runModel(stall(seed, true));
    expect(open.report.loop).toBe('open');
    expect(closed.report.loop).toBe('closed');
    // Before the dip both offer ~500/s.
    expect(offered(closed, 2, 10)).toBeGreaterThan(0.85 * offered(open, 2, 10));
    expect(offered(closed, 2, 10)).toBeLessThan(1.15 * offered(open, 2, 10));
    // In the dip the closed loop's users wait: the offered rate falls to about the capacity left (50/s).
    expect(offered(open, 11, 15)).toBeGreaterThan(450);
    expect(offered(closed, 11, 15)).toBeLessThan(100);
    // The open loop's queue (~2,000 requests, draining for seconds) puts seconds into its p90; in
    // the closed loop only the ~300 requests of the stalled users wait: its p90 stays at the service time.
    expect(open.recorder.percentile(90)).toBeGreaterThan(1_000_000);
    expect(closed.recorder.percentile(90)).toBeLessThan(100_000);
    expect(closed.recorder.percentile(99)).toBeLessThan(open.recorder.percentile(99));
  });

  it('users stop at the end of the run; the requests they sent are as many as they could (users / (think + response))', async () => {
    const { details, report } = await runModel(stall(1, true));
    expect(report.elapsedUs).toBeGreaterThanOrEqual(30_000_000);
    // ~50 / 100 ms = 500/s for 25 s, less in the dip.
    expect(details.requests.started).toBeGreaterThan(12_000);
    expect(details.requests.started).toBeLessThan(15_500);
  });

  it('closed-loop users belong to the caller group: elsewhere they are refused, naming the field', async () => {
    const profile = { name: 'closed', phases: [{ type: 'steady', rate: 10, duration: 1 }], topology: { ...stall(1, true).topology, caller: undefined } };
    const error = await parseProfileText(JSON.stringify(profile), 'closed.yaml').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProfileError);
    expect((error as ProfileError).issues[0]!.path).toBe('topology.clientGroups.users.closedLoop');
  });
});
