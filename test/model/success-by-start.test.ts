import { describe, expect, it } from 'vitest';
import type { ModelReport } from '../../src/recorder/driver-report.ts';
import { runModel } from './support/run.ts';

/**
 * Success by start time beside success by completion time: 1,000/s, a 1 s timeout, and 2 s of
 * added latency from 10 s to 12 s. The requests that fail are those started in 10–12 s; they fail
 * at their deadline, 1 s later — by completion time the failure shows in 11–13 s.
 */
function injected(seed: number) {
  return {
    seed,
    arrivals: 'poisson' as const,
    phases: [{ type: 'steady' as const, rate: 1000, duration: 20 }],
    topology: {
      entry: 'api',
      caller: 'users',
      clientGroups: { users: { timeout: '1s' } },
      services: { api: { workers: 'inf', serviceTime: '1ms' } },
      timeline: [{ type: 'latency', at: '10s', until: '12s', service: 'api', add: '2s' }],
    },
  };
}

describe('success by start time (result.driver.model.successByStart)', () => {
  it.each([1, 2, 3])('seed %i: the failures sit in the seconds their requests started, one timeout before the seconds they completed', async (seed) => {
    const { report, details, recorder } = await runModel(injected(seed));
    const byStart = (report.model as ModelReport).successByStart!;
    expect(byStart.bucketMs).toBe(1000);
    expect(byStart.started.reduce((a, b) => a + b, 0)).toBe(details.requests.started);
    expect(byStart.ok.reduce((a, b) => a + b, 0)).toBe(details.requests.succeeded);
    const ratio = (s: number) => byStart.ok[s]! / byStart.started[s]!;
    expect(ratio(9)).toBe(1);
    expect(ratio(10)).toBe(0);
    expect(ratio(11)).toBe(0);
    expect(ratio(12)).toBe(1);
    // By completion time second 10 has no success (its requests are still waiting) and no
    // failure either: they fail in 11–12 s, at their deadlines.
    const goodput = recorder.intervals.map((g) => g['goodputRps']!);
    expect(goodput[10]).toBeLessThan(10);
    expect(recorder.firstFailureUs.get('timeout')).toBeGreaterThanOrEqual(11_000_000);
  });
});
