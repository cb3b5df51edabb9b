import { basename } from 'node:path';
import { roundTo } from '../../profile/units.ts';
import type { TraceStatistics, TraceStats } from '../stats.ts';
import { empiricalSizes, fitMix } from './mix.ts';
import { fitPopularity } from './popularity.ts';
import { fitOneHitWonders, type OneHitWonderFit } from './one-hit-wonders.ts';
import { ratePhases } from './rate-phases.ts';

/*
 * A profile that reproduces a trace: its rate curve, clients, operation mix with each write's
 * value sizes, key popularity (fitted Zipf, or the trace's own), key size, hot-key episodes, and a
 * production section with the trace's own figures, so the realism flags compare the test with the
 * traffic it came from. What the profile cannot say yet is named in `notes`.
 */

export interface ProfileFit {
  profile: Record<string, unknown>;
  /** The key file of an empirical popularity, to write beside the profile under `keysFile`. */
  keysCsv?: string;
  notes: string[];
}

const CLIENTS_KEPT = 20;

export function fitProfileOf(trace: string, stats: TraceStats, statistics: TraceStatistics, keysFile: string): ProfileFit {
  const { names, counts } = statistics.keysView();
  const hot = stats.hotKeyEpisodes;
  // The keys of hot episodes are keys.hot's: the keyspace's law is fitted without them.
  const zipf = hot.length > 0 ? statistics.zipfWithout(hot.map((h) => h.key)) : stats.keys.zipf;
  const popularity = fitPopularity(zipf, names, counts, stats.requests, stats.keys.topShares);
  const mix = fitMix(stats.operations, statistics.valueSizesByOperation, statistics.ttlsByOperation);
  const notes = [
    ...mix.notes,
    ...popularityNotes(popularity),
    'topology (the model only): a look-aside cache holding every key, its service times guessed: calibrate them (stampede calibrate)',
  ];
  if (stats.ttls.some((t) => t.ttlS > 0))
    notes.push(
      `TTLs: each write kind sets its own (${stats.ttls.map((t) => `${t.ttlS}s ${(t.share * 100).toFixed(0)}%`).join(', ')} of all writes); the model expires each item at its TTL`,
    );
  const once = oneHitWondersOf(stats, popularity);
  if (once !== null) notes.push(once.note);
  const profile: Record<string, unknown> = {
    name: profileName(trace),
    description: `Fitted by stampede trace fit from ${basename(trace)}: ${stats.requests} requests over ${stats.durationS}s.`,
    seed: 1,
    // A cache starts cold: warm it for a tenth of the trace, at most a minute, before measuring.
    warmup: `${Math.min(60, Math.max(1, Math.round(stats.durationS / 10)))}s`,
    arrivals: 'poisson',
    phases: ratePhases(statistics.perSecondView()),
    mix: mix.mix,
    ...(stats.values.requestsWithValue > 0 && { valueSize: empiricalSizes(statistics.valueSizes) }),
    keys: {
      ...(popularity.kind === 'zipf'
        ? {
            count: once?.fit.keys ?? stats.keys.distinct,
            prefix: keyPrefix(stats.keys.sizeMean, stats.keys.distinct),
            popularity: { type: 'zipf', s: popularity.s },
            ...(once !== null && once.fit.share > 0 && { oneHitWonders: roundTo(once.fit.share, 4) }),
          }
        : { file: keysFile }),
      ...(hot.length > 0 && { hot }),
    },
    ...clientsOf(stats),
    production: productionOf(stats),
    topology: lookasideTopology(stats.keys.distinct),
  };
  return { profile, ...(popularity.kind === 'empirical' && { keysCsv: popularity.csv }), notes };
}

/**
 * keys.oneHitWonders from the trace's per-key ratio (a Zipf fit only: a key file already weighs
 * each of its keys, singletons included). Null when the trace has few.
 */
function oneHitWondersOf(stats: TraceStats, popularity: ReturnType<typeof fitPopularity>): { fit: OneHitWonderFit; note: string } | null {
  const ratio = stats.keys.oneHitWonderRatio;
  if (ratio <= 0.01) return null;
  const perKey = `${(ratio * 100).toFixed(1)}% of keys`;
  if (popularity.kind !== 'zipf')
    return { fit: { share: 0, keys: stats.keys.distinct }, note: `one-hit wonders (${perKey}) are among the key file's keys, each weighted by its one request` };
  const fit = fitOneHitWonders(Math.round(ratio * stats.keys.distinct), stats.keys.distinct, stats.requests, popularity.s);
  return {
    fit,
    note: `one-hit wonders: ${perKey} are asked for once; less those Zipf ${popularity.s}'s own tail leaves, keys.oneHitWonders ${(fit.share * 100).toFixed(1)}% of requests, the law keeps ${fit.keys} keys`,
  };
}

function popularityNotes(p: ReturnType<typeof fitPopularity>): string[] {
  if (p.kind === 'zipf') return [`popularity: Zipf ${p.s} (frequencies within ×${p.fit.deviation.toFixed(2)} of the line over the top ${p.fit.ranks} keys)`];
  const why = p.fit ? `Zipf ${p.fit.alpha.toFixed(2)} fits badly (×${p.fit.deviation.toFixed(2)})` : 'too few repeated keys for a Zipf fit';
  return [`popularity: the trace's own, ${p.keys} keys carrying ${(p.share * 100).toFixed(1)}% of requests (${why})`];
}

/** A profile name from the trace's file name: cluster52.0.zst → cluster52-0-fit. */
function profileName(trace: string): string {
  const stem = basename(trace)
    .replace(/(\.(zst|csv|txt|gz))+$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${(stem || 'trace').slice(0, 90)}-fit`;
}

/** A prefix that makes generated key names as long as the trace's keys on average. */
function keyPrefix(sizeMean: number, distinct: number): string {
  const digits = String(Math.max(1, distinct - 1)).length;
  return `${'k'.repeat(Math.max(1, Math.round(sizeMean) - digits - 1))}:`;
}

function clientsOf(stats: TraceStats): { clients?: { name: string; share: number }[] } {
  if (stats.clients.distinct <= 1) return {};
  const kept = stats.clients.top.slice(0, CLIENTS_KEPT);
  const used = new Set<string>();
  const clients = kept.map((c) => ({ name: uniqueName(`client-${c.client.replace(/[^A-Za-z0-9_.-]/g, '_') || 'none'}`, used), share: roundTo(c.share, 4) }));
  const rest = 1 - kept.reduce((sum, c) => sum + c.share, 0);
  if (rest > 0.0001) clients.push({ name: uniqueName('other-clients', used), share: roundTo(rest, 4) });
  return { clients };
}

function uniqueName(name: string, used: Set<string>): string {
  let unique = name;
  for (let i = 2; used.has(unique); i++) unique = `${name}-${i}`;
  used.add(unique);
  return unique;
}

function productionOf(stats: TraceStats): Record<string, unknown> {
  const { values } = stats;
  return {
    peakRps: stats.rate.peakPerS,
    topKeyShares: stats.keys.topShares.map((t) => ({ keys: t.keys, share: roundTo(t.share, 4) })),
    ...(values.requestsWithValue > 0 && { valueSize: { p50: values.p50, p90: values.p90, p99: values.p99, max: values.max } }),
  };
}

/**
 * The model's side of the fit: the trace came from a cache, so the profile runs through a
 * look-aside cache large enough for every key the trace named, in front of a database. Service
 * times are guesses until `stampede calibrate` fits them to a real qualification.
 */
function lookasideTopology(distinctKeys: number): Record<string, unknown> {
  return {
    entry: 'app',
    caller: 'users',
    clientGroups: { users: { instances: 100, timeout: '1s' }, 'to-cache': { instances: 20, timeout: '100ms' }, 'to-db': { instances: 20, timeout: '500ms' } },
    services: { app: { workers: 'inf', serviceTime: '100us', calls: [{ to: 'cache', via: 'to-cache', onMiss: { to: 'db', via: 'to-db' }, fill: true }] } },
    caches: { cache: { shards: 4, workers: 4, serviceTime: '20us', capacity: Math.max(1, distinctKeys), warm: false } },
    databases: { db: { concurrency: 200, latency: { type: 'lognormal', median: '2ms', sigma: 0.5 } } },
  };
}
