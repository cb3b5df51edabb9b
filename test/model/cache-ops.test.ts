import { describe, expect, it } from 'vitest';
import { cacheKind } from '../../src/model/components/cache/kind.ts';
import { Model } from '../../src/model/model.ts';
import { MEMCACHED_OPERATIONS } from '../../src/profile/protocols/memcached/section.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { emptyRequest } from '../../src/schedule/types.ts';
import { runModel, testProfile } from './support/run.ts';

/** api → cache for the request's key; a get's miss reads the db and fills the cache (look-aside). */
function topology(call: Record<string, unknown> = {}, cache: Record<string, unknown> = {}) {
  return {
    entry: 'api',
    clientGroups: { mc: {}, store: {} },
    services: { api: { workers: 'inf', calls: [{ to: 'cache', via: 'mc', onMiss: { to: 'db', via: 'store' }, ...call }] } },
    caches: { cache: { shards: 1, workers: 'inf', serviceTime: '10us', ...cache } },
    databases: { db: { concurrency: 100, latency: '1ms' } },
  };
}

/**
 * A model fed one request at a time: `send(kind, key, ttl)` injects it at the current virtual time
 * and runs until it is done (10 ms), so each step sees the cache its predecessors left.
 */
function stepModel(call: Record<string, unknown> = {}, cache: Record<string, unknown> = {}) {
  const profile = testProfile({
    phases: [{ type: 'steady', rate: 1, duration: 1 }],
    mix: MEMCACHED_OPERATIONS.map((kind) => ({ kind, weight: 1 })),
    keys: { count: 10 },
    topology: topology(call, cache),
  });
  const plan = createSchedule(profile).plan;
  const model = new Model(profile.topology!, plan, 1, { userCompleted: () => undefined });
  const node = model.parts.wiring.all(cacheKind)[0]!;
  const request = emptyRequest();
  request.keys = new Uint32Array(1);
  request.batchSize = 1;
  let seq = 0;
  const send = (kind: string, key: number, ttlUs = 0) => {
    request.seq = seq++;
    request.kind = plan.kinds.indexOf(kind);
    request.keys[0] = key;
    request.ttlUs = ttlUs;
    request.intendedAtUs = model.sim.nowUs;
    model.inject(request);
    model.sim.run(model.sim.nowUs + 10_000, 1e6);
    // Virtual time moves on to the end of the step even when the queue went idle before it.
    model.sim.nowUs = request.intendedAtUs + 10_000;
  };
  const details = () => model.componentDetails()['caches'] as Record<string, { operations?: Record<string, number>; hits: number; gets: number; expired: number }>;
  return { send, node, details: () => details()['cache']! };
}

describe('the model cache executes memcached operations', () => {
  it('add stores only when absent; replace, cas, append, prepend, incr, decr, touch only when present', () => {
    const { send, details } = stepModel();
    send('replace', 1);
    send('cas', 1);
    send('append', 1);
    send('prepend', 1);
    send('incr', 1);
    send('decr', 1);
    send('touch', 1);
    send('delete', 1);
    send('add', 1);
    send('add', 1);
    send('replace', 1);
    send('cas', 1);
    send('append', 1);
    send('prepend', 1);
    send('incr', 1);
    send('decr', 1);
    send('touch', 1);
    send('gets', 1);
    send('delete', 1);
    send('get', 1); // a miss: the db read fills it
    send('get', 1);
    const ops = details().operations!;
    expect(ops).toMatchObject({
      add_stored: 1,
      add_not_stored: 1,
      replace_stored: 1,
      replace_not_stored: 1,
      cas_hits: 1,
      cas_misses: 1,
      cas_badval: 0,
      append_stored: 1,
      append_not_stored: 1,
      prepend_stored: 1,
      prepend_not_stored: 1,
      incr_hits: 1,
      incr_misses: 1,
      decr_hits: 1,
      decr_misses: 1,
      cmd_touch: 2,
      touch_hits: 1,
      touch_misses: 1,
      delete_hits: 1,
      delete_misses: 1,
      cmd_get: 3,
      get_hits: 2,
      get_misses: 1,
      fills: 1,
    });
    // Every storage command counts in cmd_set, stored or not (as memcached counts them), plus the fill.
    expect(ops['cmd_set']).toBe(2 + 2 + 2 + 2 + 2 + 1);
  });

  it('an item set with a TTL expires in virtual time: a get after it misses, and one never fetched counts as expired_unfetched', () => {
    const { send, details } = stepModel({ fill: false });
    // One step every 10 ms; every TTL here is 25 ms.
    send('set', 1, 25_000); // 0 ms
    send('set', 2, 25_000); // 10
    send('get', 2); // 20: a hit (fetched)
    send('get', 1); // 30: 30 ms after its set, expired (never fetched)
    send('set', 3, 25_000); // 40
    send('get', 1); // 50: gone, a plain miss
    send('get', 2); // 60: expired, but it had been fetched
    send('touch', 3, 1_000_000); // 70: 30 ms after its set, expired: a touch miss (never fetched)
    send('set', 4, 25_000); // 80
    send('touch', 4, 1_000_000); // 90: extends it to 1 s from now
    send('get', 4); // 100: still there
    const d = details();
    expect(d.operations).toMatchObject({ get_hits: 2, get_misses: 3, get_expired: 2, touch_hits: 1, touch_misses: 1 });
    expect(d.operations!['expired_unfetched']).toBe(2); // keys 1 and 3
    expect(d.expired).toBe(3);
  });

  it('an explicit op on the call overrides the kind', () => {
    const { send, details } = stepModel({ op: 'delete' });
    send('get', 1);
    send('set', 1);
    expect(details().operations).toMatchObject({ cmd_get: 0, delete_misses: 2 });
  });

  it('plain gets (with their fills) and sets without TTLs show no operations section', async () => {
    const run = await runModel({
      seed: 2,
      phases: [{ type: 'steady', rate: 200, duration: 2 }],
      mix: [
        { kind: 'get', weight: 3 },
        { kind: 'set', weight: 1 },
      ],
      keys: { count: 50 },
      topology: topology(),
    });
    expect(run.details.caches['cache']).not.toHaveProperty('operations');
    expect(run.details.caches['cache']!.sets).toBeGreaterThan(0);
  });

  it('an add-heavy mix leaves the hit ratio to the adds: the second add of a key is NOT_STORED', async () => {
    const run = await runModel({
      seed: 4,
      phases: [{ type: 'steady', rate: 500, duration: 4 }],
      mix: [
        { kind: 'add', weight: 1, ttl: '1h' },
        { kind: 'get', weight: 1 },
      ],
      keys: { count: 100_000 },
      topology: topology({ fill: false }),
    });
    const cache = run.details.caches['cache']! as unknown as { operations: Record<string, number>; hitRatio: number };
    // ~1,000 adds over 100k keys: almost every add is a key's first.
    expect(cache.operations['add_stored']!).toBeGreaterThan(900);
    expect(cache.operations['add_not_stored']!).toBeLessThan(30);
    // Gets of random keys find few of the ~1,000 added: the hit ratio is ~1%, not a read-through's.
    expect(cache.hitRatio).toBeLessThan(0.05);
  });
});
