import { describe, expect, it } from 'vitest';
import { runModel } from './support/run.ts';

/** 10 req/s, 40 keys each; api calls the cache once per key through group g. */
function fanOut(group: Record<string, unknown>, cache: Record<string, unknown> = {}) {
  return {
    arrivals: 'constant' as const,
    phases: [{ type: 'steady' as const, rate: 10, duration: 2 }],
    batch: 40,
    keys: { count: 10_000 },
    topology: {
      entry: 'api',
      clientGroups: { g: group },
      services: { api: { workers: 'inf', calls: [{ to: 'mc', via: 'g', perItem: true }] } },
      caches: { mc: { workers: 'inf', serviceTime: '1ms', ...cache } },
    },
  };
}

describe('per-item fan-out', () => {
  it('fanoutLimit caps the calls one request has in flight (errgroup.SetLimit)', async () => {
    const { details, recorder } = await runModel(fanOut({ fanoutLimit: 5 }));
    expect(details.services['api']!.itemsInFlightHighWater).toBe(5);
    expect(details.clientGroups['g']!.openHighWaterPerPool).toBe(5);
    // 40 keys in 8 rounds of 5, 1 ms each.
    expect(recorder.percentile(0)).toBe(8_000);
    expect(recorder.percentile(100)).toBe(8_000);
  });

  it('without a limit every key is in flight at once (one goroutine per item)', async () => {
    const { details, recorder } = await runModel(fanOut({ fanoutLimit: 'inf' }));
    expect(details.services['api']!.itemsInFlightHighWater).toBe(40);
    expect(details.clientGroups['g']!.openHighWaterPerPool).toBe(40);
    expect(recorder.percentile(100)).toBe(1_000);
  });

  it('a failed item fails the request, but the other items still run and the worker waits for them', async () => {
    // One cache worker and no queue: of 40 simultaneous gets, 1 is served and 39 are rejected.
    const { details, recorder } = await runModel(fanOut({}, { workers: 1, queue: { limit: 0 } }));
    const n = details.requests.started;
    expect(recorder.failures('queue_full')).toBe(n);
    expect(details.caches['mc']!.gets).toBe(n);
    expect(details.caches['mc']!.rejected).toBe(39 * n);
    expect(details.clientGroups['g']!.attempts).toBe(40 * n);
    // The reply waits for the one served get.
    expect(recorder.percentile(0)).toBe(1_000);
  });
});
