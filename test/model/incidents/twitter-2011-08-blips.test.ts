import { describe, expect, it } from 'vitest';
import type { ModelRunResult } from '../support/run.ts';
import { rehearse, SEEDS } from './support.ts';

/**
 * Twitter 2011-08's fix — one shared membership view instead of each client ejecting on its own —
 * judged under correlated freezes (timeline blips) and under the independent packet loss the
 * shipped profile uses. Profile: twitter-2011-08-client-ejection.yaml.
 */
describe('correlated blips against independent loss: a shared client view (Twitter 2011-08, its fix judged)', () => {
  const PROFILE = 'twitter-2011-08-client-ejection';
  type Cache = { staleReads: number; lost: number };
  const INDEPENDENT: string[] = [];
  // The same share of lost requests (30% on two shards) as 3 s freezes every 10 s.
  const BLIPS = ['topology.caches.user-cache.packetLoss.probability=0', 'topology.timeline=[{type: blip, at: 5s, for: 3s, every: 10s, cache: user-cache, shards: "0-1", loss: 1}]'];
  const view = (v: string) => `topology.clientGroups.rails-to-cache.markDown.view=${v}`;
  const figures = (run: ModelRunResult) => ({
    markDowns: run.details.clientGroups['rails-to-cache']!.markDowns,
    stale: (run.details.caches['user-cache'] as unknown as Cache).staleReads,
  });

  it.each(SEEDS)(
    'seed %i: with freezes a shared view ejects >10× less than per-client views and cuts stale reads >5×; with independent loss the cut is smaller',
    { timeout: 60_000 },
    async (seed) => {
      const ownBlips = figures(await rehearse(PROFILE, seed, [...BLIPS, view('instance')]));
      const sharedBlips = figures(await rehearse(PROFILE, seed, [...BLIPS, view('shared')]));
      const ownLoss = figures(await rehearse(PROFILE, seed, [...INDEPENDENT, view('instance')]));
      const sharedLoss = figures(await rehearse(PROFILE, seed, [...INDEPENDENT, view('shared')]));
      // A freeze hits every client at once: each of 100 clients ejects on its own, or one ejection serves all.
      expect(sharedBlips.markDowns * 10).toBeLessThan(ownBlips.markDowns);
      expect(sharedBlips.stale * 5).toBeLessThan(ownBlips.stale);
      expect(sharedLoss.markDowns).toBeLessThan(ownLoss.markDowns);
      // Independent loss keeps re-ejecting the lossy shards; the stale reads left are a bigger share.
      expect(ownLoss.stale / sharedLoss.stale).toBeLessThan(ownBlips.stale / sharedBlips.stale);
    },
  );
});

/**
 * How an ejected node comes back decides whether one view is enough. Each 3 s freeze outlasts
 * nobody's patience (3 failures) and a 4 s ejection outlasts the freeze, so every freeze ejects
 * shards 0–1 and they rejoin before the next one. A shared view ejects a frozen node for every
 * client at once and takes it back at once: nobody writes or reads a copy the others skip. With
 * per-client views each client ejects and rejoins on its own clock, so writers and readers
 * disagree about where a key lives in between.
 */
describe('rejoin after correlated freezes: a shared view with cold rejoins leaves no stale read (Twitter 2011-08)', () => {
  const PROFILE = 'twitter-2011-08-client-ejection';
  const FREEZES = 6; // at 5, 15, …, 55 s of the 60 s run
  const FROZEN_SHARDS = 2;
  type Cache = { staleReads: number; staleReadsByCause: Record<string, number>; rejoinFlushes: number };
  const FREEZE = [
    'topology.caches.user-cache.packetLoss.probability=0',
    'topology.timeline=[{type: blip, at: 5s, for: 3s, every: 10s, cache: user-cache, shards: "0-1", loss: 1}]',
    'topology.clientGroups.rails-to-cache.markDown.duration=4s',
  ];
  const run = async (seed: number, view: 'shared' | 'instance', rejoin: 'cold' | 'warm') => {
    const result = await rehearse(PROFILE, seed, [...FREEZE, `topology.clientGroups.rails-to-cache.markDown.view=${view}`, `topology.caches.user-cache.rejoin.markDown=${rejoin}`]);
    const cache = result.details.caches['user-cache'] as unknown as Cache;
    const byCause = Object.values(cache.staleReadsByCause).reduce((a, b) => a + b, 0);
    expect(byCause).toBe(cache.staleReads);
    return cache;
  };

  it.each(SEEDS)(
    'seed %i: shared + cold has none; per-client views still read divergent copies; warm rejoins bring stale copies back to every client',
    { timeout: 60_000 },
    async (seed) => {
      const sharedCold = await run(seed, 'shared', 'cold');
      const ownCold = await run(seed, 'instance', 'cold');
      const sharedWarm = await run(seed, 'shared', 'warm');
      // One view: each frozen shard leaves and comes back once per freeze, for everyone.
      expect(sharedCold.rejoinFlushes).toBeGreaterThan(0);
      expect(sharedCold.rejoinFlushes).toBeLessThanOrEqual(FREEZES * FROZEN_SHARDS);
      expect(sharedCold.staleReads).toBe(0);
      // Per-client views: every client takes the shard back on its own, many times per freeze, and
      // between two clients' rejoins one writes where the other does not read.
      expect(ownCold.rejoinFlushes).toBeGreaterThan(FREEZES * FROZEN_SHARDS);
      expect(ownCold.staleReads).toBeGreaterThan(sharedCold.staleReads);
      expect(ownCold.staleReadsByCause['markDown']).toBeGreaterThan(0);
      // A shared view alone is not the fix: a warm rejoin returns the copies every client skipped while it was out.
      expect(sharedWarm.staleReads).toBeGreaterThan(0);
      // Mostly copies written past while the shard was out; the rest are sets lost in the freeze before anyone ejected it.
      const { markDown, failedSet } = sharedWarm.staleReadsByCause;
      expect(markDown).toBeGreaterThan(failedSet!);
      expect(markDown! + failedSet!).toBe(sharedWarm.staleReads);
    },
  );
});
