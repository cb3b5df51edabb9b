import { describe, expect, it } from 'vitest';
import { runModel } from './support/run.ts';

/** 10 requests/s of 16 keys each, fanned out to one cache shard of unlimited workers at 1 ms. */
function fanOut(pool: Record<string, unknown>) {
  return {
    arrivals: 'constant' as const,
    phases: [{ type: 'steady' as const, rate: 10, duration: 2 }],
    batch: 16,
    keys: { count: 1000 },
    topology: {
      entry: 'api',
      clientGroups: { g: { pool } },
      services: { api: { workers: 'inf', calls: [{ to: 'mc', via: 'g', perItem: true }] } },
      caches: { mc: { workers: 'inf', serviceTime: '1ms' } },
    },
  };
}

describe('pipelining (requests outstanding per connection)', () => {
  it('two connections with depth 8 carry all 16 keys of a request at once', async () => {
    const { details, recorder } = await runModel(fanOut({ maxOpen: 2, pipelining: 8 }));
    expect(details.clientGroups['g']!.openHighWaterPerPool).toBe(2);
    expect(details.clientGroups['g']!.waitingHighWater).toBe(0);
    expect(recorder.percentile(100)).toBe(1_000);
  });

  it('without pipelining the same two connections serialise the keys: 8 rounds of 1 ms', async () => {
    const { details, recorder } = await runModel(fanOut({ maxOpen: 2 }));
    expect(details.clientGroups['g']!.openHighWaterPerPool).toBe(2);
    expect(recorder.percentile(100)).toBe(8_000);
  });
});
