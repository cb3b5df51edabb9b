import { describe, expect, it } from 'vitest';
import { runModel } from './support/run.ts';

function dbTopology(db: Record<string, unknown>, perItem = false) {
  return {
    entry: 'api',
    clientGroups: { store: {} },
    services: { api: { workers: 'inf', calls: [{ to: 'db', via: 'store', perItem }] } },
    databases: { db: { concurrency: 4, latency: '10ms', ...db } },
  };
}

describe('database latency under load', () => {
  it('follows latency × (1 + slowdown × max(0, outstanding/concurrency − 1)) at the start of each operation', async () => {
    // Three operations at once on one slot: 10 ms; then 2 outstanding → ×2 = 20 ms; then alone → 10 ms.
    const { details, recorder } = await runModel({
      arrivals: 'constant',
      phases: [{ type: 'steady', rate: 1, duration: 1 }],
      batch: 3,
      topology: dbTopology({ concurrency: 1, slowdown: 1 }, true),
    });
    expect(details.requests.started).toBe(1);
    expect(details.databases['db']!.meanLatencyUs).toBeCloseTo(40_000 / 3, 6);
    expect(recorder.percentile(100)).toBe(40_000);
  });

  it('without a backlog latency is the base latency, slowdown or not', async () => {
    const { details } = await runModel({ arrivals: 'constant', phases: [{ type: 'steady', rate: 100, duration: 2 }], topology: dbTopology({ slowdown: 1 }) });
    expect(details.databases['db']!.meanLatencyUs).toBe(10_000);
  });

  it('slowdown raises latency with load: an overload costs far more than its queueing alone', async () => {
    // 600 ops/s against 4 slots × 100 ops/s: a backlog builds either way.
    const overload = (slowdown: number) => runModel({ arrivals: 'constant', phases: [{ type: 'steady', rate: 600, duration: 2 }], topology: dbTopology({ slowdown }) });
    const flat = await overload(0);
    const slowed = await overload(0.5);
    expect(flat.details.databases['db']!.meanLatencyUs).toBe(10_000);
    expect(slowed.details.databases['db']!.meanLatencyUs).toBeGreaterThan(50_000);
    expect(slowed.recorder.percentile(50)).toBeGreaterThan(2 * flat.recorder.percentile(50));
  });
});
