import { describe, expect, it } from 'vitest';
import { mean } from './incidents/support.ts';
import { runModel } from './support/run.ts';

/**
 * A server whose latency grows with its concurrency (latency = base + k × in-flight, no worker
 * limit): at 3,000/s with k = 0.1 ms it settles at ~14 ms (in flight L = λ·10 ms / (1 − λk)). A
 * 2 s spike to 12,000/s (λk = 1.2) makes in-flight grow; replies pass the 50 ms timeout. With 3
 * retries the load after the spike is 4 × 3,000 = 12,000 attempts/s — still λk > 1, so the
 * collapse outlives its trigger. Without retries 3,000/s (λk = 0.3) drains the backlog.
 */
function spike(seed: number, retries: number) {
  return {
    seed,
    arrivals: 'poisson' as const,
    phases: [
      { type: 'steady' as const, rate: 3000, duration: 10 },
      { type: 'steady' as const, rate: 12_000, duration: 2 },
      { type: 'steady' as const, rate: 3000, duration: 28 },
    ],
    topology: {
      entry: 'api',
      caller: 'clients',
      clientGroups: { clients: { instances: 10, timeout: '50ms', retries: { count: retries } } },
      services: { api: { workers: 'inf', serviceTime: { type: 'exponential', mean: '10ms' }, latencyPerInFlight: '100us' } },
    },
  };
}

describe('a server whose latency grows with its concurrency (latencyPerInFlight)', () => {
  const goodput = (run: Awaited<ReturnType<typeof runModel>>, from: number, to: number) =>
    mean(
      run.recorder.intervals.map((g) => g['goodputRps'] ?? 0),
      from,
      to,
    ) / 3000;
  const inFlight = (run: Awaited<ReturnType<typeof runModel>>, at: number) => run.recorder.intervals[at]!['busyWorkers.api']!;

  it.each([1, 2, 3])('seed %i with 3 retries: a 2 s spike collapses it for good — in flight keeps growing after the spike', { timeout: 60_000 }, async (seed) => {
    const run = await runModel(spike(seed, 3));
    expect(goodput(run, 3, 10)).toBeGreaterThan(0.95);
    expect(goodput(run, 30, 40)).toBeLessThan(0.05);
    expect(inFlight(run, 38)).toBeGreaterThan(inFlight(run, 20));
    // 4 attempts per request once they all time out.
    expect(
      mean(
        run.recorder.intervals.map((g) => g['attemptsRps.clients'] ?? 0),
        30,
        40,
      ),
    ).toBeGreaterThan(3.5 * 3000);
  });

  it.each([1, 2, 3])('seed %i without retries: the same spike drains and it recovers', { timeout: 60_000 }, async (seed) => {
    const run = await runModel(spike(seed, 0));
    // Recovered (≥ 95%): ~1% of exponential service times pass 50 ms at any load.
    expect(goodput(run, 30, 40)).toBeGreaterThan(0.95);
    // Back at ~λ·W = 3,000 × 14 ms ≈ 43 requests in the service.
    expect(inFlight(run, 38)).toBeLessThan(100);
  });
});
