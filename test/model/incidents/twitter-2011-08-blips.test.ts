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
