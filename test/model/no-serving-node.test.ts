import { describe, expect, it } from 'vitest';
import { runModel, type TestProfile } from './support/run.ts';

/*
 * Issue 23, deliverable 1: no request succeeds without asking anyone. Both shards of the cache go
 * down for 3 s; the client group ejects a node after 3 failures and rehashes onto the ring's next
 * live node — until none is left. Every call from then on has no node to ask.
 */
function profile(options: { onMiss: boolean; then: 'miss' | 'rehash'; write?: boolean }): TestProfile {
  return {
    seed: 7,
    phases: [{ type: 'steady', rate: 200, duration: 6 }],
    topology: {
      entry: 'api',
      clientGroups: { mc: { timeout: '50ms', markDown: { failures: 3, duration: '10s', then: options.then } }, store: {} },
      services: {
        api: {
          workers: 16,
          calls: [{ to: 'cache', via: 'mc', ...(options.write ? { write: true } : {}), ...(options.onMiss ? { onMiss: { to: 'db', via: 'store' } } : {}) }],
        },
      },
      caches: { cache: { shards: 2 } },
      databases: { db: { concurrency: 50, latency: '1ms' } },
      timeline: [{ type: 'blip', at: '1s', for: '3s', cache: 'cache', shards: '0-1', down: true }],
    },
  };
}

describe('a call with no node to serve it', () => {
  it('rehash onto a ring with no live node, without onMiss: the reads fail as no_live_node, each counted', async () => {
    const { recorder, details } = await runModel(profile({ onMiss: false, then: 'rehash' }));
    const group = details.clientGroups['mc'] as unknown as { noLiveNode: number; markDowns: number };
    expect(group.markDowns).toBeGreaterThan(0);
    expect(recorder.failures('no_live_node')).toBeGreaterThan(0);
    expect(recorder.failures('no_live_node')).toBe(group.noLiveNode);
    // Every success was answered by a shard: gets served = successes (no success without a get).
    expect(details.caches['cache']!.gets).toBeGreaterThanOrEqual(recorder.succeeded);
  });

  it('rehash with onMiss: a read with no live node is a counted miss that the database answers', async () => {
    const { recorder, details } = await runModel(profile({ onMiss: true, then: 'rehash' }));
    const group = details.clientGroups['mc'] as unknown as { missedUnasked: number; noLiveNode: number };
    expect(group.missedUnasked).toBeGreaterThan(0);
    expect(group.noLiveNode).toBe(0);
    expect(recorder.failures('no_live_node')).toBe(0);
    // Each unasked miss was read from the database, as each asked miss was.
    expect(details.databases['db']!.completed).toBeGreaterThanOrEqual(details.caches['cache']!.misses + group.missedUnasked);
  });

  it('a cache write with no live node fails as no_live_node instead of succeeding unstored', async () => {
    const { recorder, details } = await runModel(profile({ onMiss: false, then: 'miss', write: true }));
    const group = details.clientGroups['mc'] as unknown as { noLiveNode: number };
    expect(group.noLiveNode).toBeGreaterThan(0);
    expect(recorder.failures('no_live_node')).toBe(group.noLiveNode);
    expect(details.caches['cache']!.sets).toBeGreaterThanOrEqual(recorder.succeeded);
  });
});
