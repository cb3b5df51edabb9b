import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './support.ts';

/**
 * Twitter 2016-01 (incidents.md §2): a 5× spike (20–50 s) fills socket buffers on cache hosts with
 * fragmented kernel memory; shards are OOM-killed; with more dead than the cluster manager removes
 * (2), the rest stay in the ring and their keys fail; operators restore all at 70 s, empty.
 * Profile: twitter-2016-01-socket-oom.yaml.
 */
describe('twitter-2016-01-socket-oom', () => {
  const PROFILE = 'twitter-2016-01-socket-oom';
  const SHARDS = 20;
  const AUTO_REMOVED = 2;
  const OFFERED = 2000;

  it.each(SEEDS)('seed %i with fragmented hosts: shards die in the spike, errors stay flat after it until the operators act', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed);
    const dead = series(run, 'deadShards.tweet-cache');
    expect(Math.max(...dead.slice(0, 20))).toBe(0);
    const deadAfter = dead[50]!;
    // More dead than the manager will remove — so it removes only the first two.
    expect(deadAfter).toBeGreaterThan(AUTO_REMOVED);
    // Flat: nothing dies or comes back between the spike's end and the restore (no restart path).
    expect(dead[68]).toBe(deadAfter);
    // Reads fail in proportion to the dead shards still in the ring: the removed two's keys spread
    // over the remaining 18 members, of which deadAfter − 2 refuse. ±0.1 for unequal ketama arcs.
    const expected = 1 - (deadAfter - AUTO_REMOVED) / (SHARDS - AUTO_REMOVED);
    const success = mean(series(run, 'goodputRps'), 52, 69) / OFFERED;
    expect(Math.abs(success - expected)).toBeLessThan(0.1);
    // All restored at once, empty: their keys miss (a cold-miss surge the database absorbs here).
    expect(dead[71]).toBe(0);
    expect(series(run, 'hitRatio.tweet-cache')[71]!).toBeLessThan(1 - (0.5 * deadAfter) / SHARDS);
    expect(mean(series(run, 'goodputRps'), 72, 90) / OFFERED).toBeGreaterThan(0.95);
  });

  it.each(SEEDS)('seed %i on hosts restarted often (no fragmentation): the spike passes, no shard dies', { timeout: 30_000 }, async (seed) => {
    const run = await rehearse(PROFILE, seed, ['topology.caches.tweet-cache.memory.fragmentation=0']);
    expect(Math.max(...series(run, 'deadShards.tweet-cache'))).toBe(0);
    expect(run.details.requests.failed).toBe(0);
  });
});
