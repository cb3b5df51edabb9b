import { describe, expect, it } from 'vitest';
import { ProfileError } from '../../src/profile/issues.ts';
import { parseProfileText } from '../../src/profile/load.ts';
import { runModel } from './support/run.ts';

/** Defaults that used to change a scenario without a word (issue 11, gap 7). */
describe('defaults that must not change a scenario silently', () => {
  // An abstract caller hop: 100 instances, 2 s timeout, in front of a service that queues ~40k
  // calls during a 20 s dip (capacity ÷ 10). Each queued call holds a connection of its own.
  const queueing = (host: boolean, seed: number) => ({
    seed,
    arrivals: 'constant' as const,
    phases: [{ type: 'steady' as const, rate: 3000, duration: 40 }],
    topology: {
      entry: 'api',
      caller: 'users',
      ...(host ? { hosts: { box: {} } } : {}),
      clientGroups: { users: { instances: 1, timeout: '60s', ...(host ? { host: 'box' } : {}) } },
      services: { api: { workers: 40, serviceTime: '10ms' } },
      timeline: [{ type: 'dip', start: '5s', every: '1h', for: '20s', service: 'api', slowdown: 10 }],
    },
  });

  it.each([1, 2, 3])(
    'seed %i: a client group with no host has no port limit (no dial_error however many calls queue); naming a host brings the 28,232-port limit',
    { timeout: 60_000 },
    async (seed) => {
      const free = await runModel(queueing(false, seed));
      expect(free.recorder.failures('dial_error')).toBe(0);
      expect(free.details.hosts['users']!.portRange).toBe('inf');
      expect(free.details.hosts['users']!.portsHighWaterPerTuple).toBeGreaterThan(28_232);
      const limited = await runModel(queueing(true, seed));
      expect(limited.recorder.failures('dial_error')).toBeGreaterThan(0);
      expect(limited.details.hosts['box']!.portsHighWaterPerTuple).toBe(28_232);
    },
  );

  it('markDown then: miss on a cache read without onMiss is refused at validation, naming the field', async () => {
    const profile = (onMiss: boolean, then: 'miss' | 'rehash') =>
      JSON.stringify({
        name: 'mark-down',
        phases: [{ type: 'steady', rate: 10, duration: 1 }],
        topology: {
          entry: 'api',
          clientGroups: { mc: { markDown: { failures: 3, duration: '10s', then } }, store: {} },
          services: { api: { workers: 4, calls: [{ to: 'cache', via: 'mc', ...(onMiss ? { onMiss: { to: 'db', via: 'store' } } : {}) }] } },
          caches: { cache: { shards: 2 } },
          databases: { db: { concurrency: 10, latency: '1ms' } },
        },
      });
    const refused = await parseProfileText(profile(false, 'miss'), 'mark-down.yaml').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProfileError);
    const issue = (refused as ProfileError).issues[0]!;
    expect(issue.path).toBe('topology.services.api.calls[0].onMiss');
    expect(issue.message).toContain('clientGroups.mc.markDown.then is "miss"');
    await expect(parseProfileText(profile(true, 'miss'), 'mark-down.yaml')).resolves.toBeDefined();
    await expect(parseProfileText(profile(false, 'rehash'), 'mark-down.yaml')).resolves.toBeDefined();
  });
});
