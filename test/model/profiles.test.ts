import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/profile/load.ts';
import { runProfileOnModel } from './support/run.ts';

const profilePath = (name: string) => join(import.meta.dirname, '../../profiles', `${name}.yaml`);

/** Each incident profile shows its signature on the model, and loses it with the fix. */
describe('incident rehearsals', () => {
  describe('bluesky-20k-batch', () => {
    // 20 s instead of 40: the heavy caller starts at 10 s, so 25 batches.
    const run = async (overrides: string[]) => runProfileOnModel(await loadProfile(profilePath('bluesky-20k-batch'), ['phases[0].duration=20s', ...overrides]));

    it('without a fan-out limit: TIME_WAIT pins the port range within a second, then batches fail with dial_error', { timeout: 60_000 }, async () => {
      const { details, recorder } = await run([]);
      const range = details.hosts['appview']!.portRange as number;
      const timeWait = recorder.intervals.map((g) => g['timeWaitConnections.appview']!);
      expect(timeWait[9]).toBe(0); // before the heavy caller
      expect(timeWait[10]!).toBeGreaterThan(0.9 * range); // one batch later
      expect(details.hosts['appview']!.portsHighWaterPerTuple).toBe(range);
      const heavy = recorder.perClient.get(1)!;
      expect(heavy.failed).toBeGreaterThanOrEqual(heavy.ok + heavy.failed - 1); // all but the first batch
      expect(recorder.failures('dial_error')).toBe(details.requests.failed);
      // Background requests caught while a batch holds the pool fail too.
      expect(recorder.perClient.get(0)!.failed).toBeGreaterThan(0);
    });

    it('with errgroup.SetLimit(50): no connection is closed, no TIME_WAIT, no failure', { timeout: 60_000 }, async () => {
      const { details, recorder } = await run(['topology.clientGroups.memcache.fanoutLimit=50']);
      expect(details.requests.failed).toBe(0);
      expect(details.clientGroups['memcache']!.closes).toBe(0);
      expect(Math.max(...recorder.intervals.map((g) => g['timeWaitConnections.appview']!))).toBe(0);
      expect(details.services['dataplane']!.itemsInFlightHighWater).toBe(50);
    });
  });

  describe('black-friday', () => {
    const run = async (overrides: string[]) => runProfileOnModel(await loadProfile(profilePath('black-friday'), overrides));

    it('without a checkout timeout every front-end thread ends up stuck and browse pages die with the orders', { timeout: 60_000 }, async () => {
      const { details, recorder } = await run([]);
      const last = recorder.intervals.at(-1)!;
      expect(last['busyWorkers.frontend']).toBe(3000);
      expect(last['checkoutWaiters']!).toBeGreaterThan(1000);
      expect(last['goodputRps']).toBe(0);
      const browse = recorder.perClient.get(0)!;
      expect(browse.failed / (browse.ok + browse.failed)).toBeGreaterThan(0.3);
      expect(recorder.failures('timeout')).toBe(details.requests.failed);
    });

    it('with a 1 s checkout timeout delivery orders fail fast and browse pages survive', { timeout: 60_000 }, async () => {
      const { recorder } = await run(['topology.clientGroups.fe-scheduling.pool.checkoutTimeout=1s']);
      expect(recorder.perClient.get(0)!.failed).toBe(0);
      expect(recorder.perClient.get(2)!.failed).toBe(recorder.failures('checkout_timeout'));
      expect(Math.max(...recorder.intervals.map((g) => g['busyWorkers.frontend']!))).toBeLessThan(2000);
    });
  });
});
