import { roundTo } from '../profile/units.ts';
import type { HotKeysMinute } from './stats.ts';

/*
 * Hot-key episodes from the minute-by-minute top keys: a key whose share of a minute rises well
 * above its usual share (3×, and at least 1% of the minute) is having an episode, as
 * the viral tweet did. Each run of such minutes becomes a `keys.hot` entry: it starts at the first
 * minute, rises to its peak (its share of that minute's draws, as keys.hot counts a peak), holds
 * while within 90% of it, and decays with the half-life its minutes after the hold show.
 */

export interface HotKeyEpisode {
  key: string;
  start: string;
  rise: string;
  peak: number;
  hold: string;
  halfLife?: string;
}

const ABOVE_USUAL = 3;
const MIN_SHARE = 0.01;
const MOST_EPISODES = 10;

/**
 * Episodes of the trace's hot keys, the highest peaks first. A key's usual share is its share of
 * the minutes it was not among the busiest (or of the whole trace, when it always was): a key hot
 * for a while counts its own episode into its whole-trace share, so that share would hide it.
 */
export function hotKeyEpisodes(minutes: readonly HotKeysMinute[], requestsOf: (key: string) => number, requests: number): HotKeyEpisode[] {
  const topMinutes = new Map<string, { minute: number; share: number; requests: number }[]>();
  for (const m of minutes) for (const { key, share } of m.top) topMinutes.set(key, [...(topMinutes.get(key) ?? []), { minute: m.minute, share, requests: m.requests }]);
  const episodes: (HotKeyEpisode & { peakShare: number })[] = [];
  for (const [key, seen] of topMinutes) {
    const usual = usualShare(requestsOf(key), requests, seen);
    const hot = new Map(seen.filter((m) => m.share >= MIN_SHARE && m.share >= ABOVE_USUAL * usual).map((m) => [m.minute, m.share]));
    for (const run of runsOf(hot)) episodes.push(episodeOf(key, run));
  }
  return episodes
    .sort((a, b) => b.peakShare - a.peakShare)
    .slice(0, MOST_EPISODES)
    .map(({ peakShare: _, ...episode }) => episode);
}

function usualShare(keyRequests: number, requests: number, seen: readonly { share: number; requests: number }[]): number {
  const inSeen = seen.reduce((sum, m) => sum + m.share * m.requests, 0);
  const seenRequests = seen.reduce((sum, m) => sum + m.requests, 0);
  return requests > seenRequests ? Math.max(0, keyRequests - inSeen) / (requests - seenRequests) : keyRequests / requests;
}

/** Consecutive minutes of one key's episode shares, as [minute, share] runs. */
function runsOf(shares: Map<number, number>): [number, number][][] {
  const runs: [number, number][][] = [];
  for (const minute of [...shares.keys()].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && last.at(-1)![0] === minute - 1) last.push([minute, shares.get(minute)!]);
    else runs.push([[minute, shares.get(minute)!]]);
  }
  return runs;
}

function episodeOf(key: string, run: [number, number][]): HotKeyEpisode & { peakShare: number } {
  const peakAt = run.reduce((best, m, i) => (m[1] > run[best]![1] ? i : best), 0);
  const peak = run[peakAt]![1];
  let holdEnd = peakAt;
  while (holdEnd + 1 < run.length && run[holdEnd + 1]![1] >= 0.9 * peak) holdEnd++;
  const halfAt = run.findIndex((m, i) => i > holdEnd && m[1] <= peak / 2);
  const start = run[0]![0];
  return {
    key,
    start: `${start * 60}s`,
    rise: `${(run[peakAt]![0] - start) * 60}s`,
    peak: roundTo(peak, 4),
    hold: `${(run[holdEnd]![0] - run[peakAt]![0] + 1) * 60}s`,
    ...(halfAt >= 0 && { halfLife: `${(run[halfAt]![0] - run[holdEnd]![0]) * 60}s` }),
    peakShare: peak,
  };
}
