import { describe, expect, it } from 'vitest';
import { rehearse } from './support.ts';

/**
 * Same profile, same seed → the same event trace (hash over every processed event's time, handler
 * and code), for profiles that exercise the newer components: process restarts, GC, ketama
 * membership changes, mark-downs and rehashing, per-shard OOM, accept queues and monitor restarts,
 * the timeline.
 */
describe('incident profiles are deterministic', () => {
  it.each([
    ['bluesky-oom-spiral', ['phases[0].duration=25s']],
    ['twitter-2011-08-client-ejection', []],
    ['twitter-2013-gc-spiral', []],
    ['twitter-2014-01-connection-storm', []],
    ['twitter-2016-01-socket-oom', []],
    ['twitter-2016-07-shards-added', []],
    ['twitter-2018-06-failover', []],
  ] as const)('%s: identical trace hash and counters for the same seed, a different hash for another', { timeout: 30_000 }, async (profile, overrides) => {
    const a = await rehearse(profile, 1, [...overrides]);
    const b = await rehearse(profile, 1, [...overrides]);
    const c = await rehearse(profile, 2, [...overrides]);
    expect(b.details.traceHash).toBe(a.details.traceHash);
    expect(b.details.events).toBe(a.details.events);
    expect(b.details.requests).toEqual(a.details.requests);
    expect(c.details.traceHash).not.toBe(a.details.traceHash);
  });
});
