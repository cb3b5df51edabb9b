import { describe, expect, it } from 'vitest';
import { runModel } from './support/run.ts';

/** 1,000 requests/s for 20 s into api → cache (per key) on host `box`; timeline events under test. */
function stack(timeline: unknown[], extra: { service?: Record<string, unknown>; cache?: Record<string, unknown>; db?: boolean } = {}) {
  return {
    arrivals: 'constant' as const,
    phases: [{ type: 'steady' as const, rate: 1000, duration: 20 }],
    batch: 4,
    keys: { count: 10_000 },
    topology: {
      entry: 'api',
      hosts: { box: { portRange: 28232, timeWait: '60s' } },
      clientGroups: { mc: { host: 'box', pool: { maxIdle: 'inf' }, timeout: '1s' }, store: { host: 'box' } },
      services: {
        api: {
          workers: 'inf',
          serviceTime: '100us',
          calls: [{ to: 'cache', via: 'mc', perItem: true, ...(extra.db ? { onMiss: { to: 'db', via: 'store' } } : {}) }],
          ...extra.service,
        },
      },
      caches: { cache: { shards: 4, workers: 'inf', serviceTime: '5ms', warm: true, ...extra.cache } },
      ...(extra.db ? { databases: { db: { concurrency: 100, latency: '1ms' } } } : {}),
      timeline,
    },
  };
}

describe('timeline events', () => {
  it('restart: in-flight requests reset, new ones refused while down, pools emptied into TIME_WAIT that outlives the process', async () => {
    const { details, recorder } = await runModel(stack([{ type: 'restart', at: '10s', service: 'api', downFor: '2s' }]));
    // ~1,000/s × 5 ms = ~5 requests in flight at the restart; 2 s × 1,000/s refused.
    expect(recorder.failures('connection_reset')).toBeGreaterThan(0);
    expect(recorder.failures('connection_refused')).toBeGreaterThan(1900);
    expect(recorder.failures('connection_refused')).toBeLessThanOrEqual(2001);
    expect(details.services['api']!.failed + details.services['api']!.succeeded).toBeGreaterThan(0);
    // The pool's connections were closed by the kernel when the process died: TIME_WAIT on the
    // host right after (intervals end at whole seconds; the restart at 10 s precedes the 10 s sample), none before.
    const tw = recorder.intervals.map((g) => g['timeWaitConnections.box']!);
    expect(tw[8]).toBe(0);
    expect(tw[11]!).toBeGreaterThan(0);
    // Back after 2 s: the last seconds succeed.
    expect(recorder.intervals.at(-2)!['goodputRps']).toBeGreaterThan(900);
  });

  it('latency injection on a database adds its delay only inside the window', async () => {
    const { recorder } = await runModel(stack([{ type: 'latency', at: '5s', until: '10s', database: 'db', add: '50ms' }], { db: true, cache: { warm: false, capacity: 0 } }));
    // Every key misses (capacity 0): requests in the window take ≥ 50 ms, the others ~6 ms.
    const slow = recorder.intervals.map((g) => g['dbInFlight.db']!);
    expect(Math.max(...slow.slice(5, 9))).toBeGreaterThan(100); // 4,000 reads/s × 50 ms ≈ 200 in flight
    expect(Math.max(...slow.slice(12))).toBeLessThan(20);
    expect(recorder.percentile(50)).toBeLessThan(20_000);
    expect(recorder.percentile(80)).toBeGreaterThan(50_000);
  });

  it('an operator switches a fan-out limit on mid-run (set), and the next requests obey it', async () => {
    const { details } = await runModel(stack([{ type: 'set', at: '10s', clientGroup: 'mc', fanoutLimit: 1 }]));
    expect(details.services['api']!.itemsInFlightHighWater).toBe(4);
    expect(details.requests.failed).toBe(0);
  });

  it('removeShards and addShards on a modulo cache move most keys (compare ketama in ring.test.ts)', async () => {
    const { recorder } = await runModel(stack([{ type: 'removeShards', at: '10s', cache: 'cache', count: 1 }]));
    const hit = recorder.intervals.map((g) => g['hitRatio.cache']!);
    // hash mod 4 → hash mod 3: ~3/4 of keys change shard and miss once.
    expect(hit[5]).toBe(1);
    expect(hit[10]!).toBeLessThan(0.5);
    expect(recorder.intervals[12]!['shards.cache']).toBe(3);
  });
});
