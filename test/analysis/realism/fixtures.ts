import type { ProfileInput } from '../../../src/profile/schema.ts';
import type { Profile } from '../../../src/profile/types.ts';
import type { RunResult } from '../../../src/recorder/result.ts';
import type { GeneratorFigures } from '../../../src/recorder/driver-report.ts';
import { SHARED_GAUGES, gaugeCatalog } from '../../../src/recorder/gauges.ts';
import { encodeIntoCompressedBase64, newHistogram } from '../../../src/recorder/histograms.ts';
import { digestOf } from '../../../src/recorder/interval-digest.ts';
import { makeProfile } from '../../helpers/profile.ts';

/** A topology with what realism asks for: a caller with a timeout, a sharded cache, 2 connections per client, backoff on retries. */
export const REALISTIC_TOPOLOGY = {
  entry: 'api',
  caller: 'users',
  clientGroups: {
    users: { instances: 2000, timeout: '2s' },
    'api-to-cache': { instances: 50, pool: { maxOpen: 2, maxIdle: 2 }, timeout: '100ms', retries: { count: 1, backoff: { base: '10ms' } } },
  },
  services: { api: { workers: 'inf' as const, serviceTime: '100us', calls: [{ to: 'cache', via: 'api-to-cache', perItem: true }] } },
  caches: { cache: { shards: 20, capacity: 50_000, warm: true } },
};

/** A profile that departs from production in no way stampede checks: every flag is quiet on it (except the model's info note). */
export const REALISTIC: ProfileInput = {
  name: 'realistic',
  warmup: '10s',
  phases: [{ type: 'steady', rate: 1000, duration: '60s' }],
  keys: { count: 1_000_000, popularity: { type: 'zipf', s: 0.99 }, hot: [{ key: 'viral', start: '10s', rise: '5s', peak: 0.3 }] },
  batch: {
    type: 'mixture',
    of: [
      { weight: 0.9999, type: 'uniform', min: 1, max: 50 },
      { weight: 0.0001, type: 'uniform', min: 15000, max: 20000 },
    ],
  },
  valueSize: { type: 'lognormal', median: 400, sigma: 1.5 },
  slo: { latency: [{ percentile: 99, max: '50ms' }], errorRate: 0.001 },
  production: {
    peakRps: 1000,
    dataCentres: 2,
    topKeyShares: [{ keys: 1, share: 0.3 }],
    batchSize: { p50: 25, p99: 50, max: 20000 },
    valueSize: { p50: 400, p99: 12000 },
    connectionsPerClient: 2,
    clientInstances: 2000,
    shards: 20,
    hitRatio: 0.95,
  },
  multipliers: [{ at: '30s', until: '40s', factor: 2, label: 'failover' }],
  topology: REALISTIC_TOPOLOGY,
};

/** REALISTIC with some fields replaced (shallowly; `production` and `topology` merge one level deep; `production: undefined` removes it). */
export function profileWith(changes: Partial<ProfileInput> & { productionChanges?: Record<string, unknown>; topologyChanges?: Record<string, unknown> }): Profile {
  const { productionChanges, topologyChanges, ...rest } = changes;
  return makeProfile({
    ...REALISTIC,
    ...rest,
    // `production: undefined` drops the section: the profile says nothing of its production.
    production: 'production' in rest && rest.production === undefined ? undefined : { ...REALISTIC.production, ...productionChanges },
    topology: { ...REALISTIC_TOPOLOGY, ...topologyChanges } as ProfileInput['topology'],
  } as never);
}

const latency = (p50: number, p99: number) => ({ count: 60_000, mean: p50, p50, p90: p99 / 2, p99, p999: p99 * 1.5, max: p99 * 2 });

/** An encoded histogram of n requests whose p50, p90 and p99 are the given figures (as `latency` states them). */
export function encodedLatency(p50: number, p99: number, n = 60_000): string {
  const h = newHistogram();
  const shares: [number, number][] = [
    [p50, 0.5],
    [p99 / 2, 0.4],
    [p99 * 0.8, 0.085],
    [p99, 0.014],
    [p99 * 1.5, 0.001],
  ];
  for (const [value, share] of shares) h.recordValueWithCount(Math.round(value), Math.round(share * n));
  return encodeIntoCompressedBase64(h);
}

const slice = (requests: number, failed: number, p50: number, p99: number) => ({
  requests,
  ok: requests - failed,
  failed,
  latencyUs: latency(p50, p99),
  histogram: encodedLatency(p50, p99, requests),
});

/** A measured result of REALISTIC that raises nothing; tests change one figure at a time. */
export function resultWith(changes: Partial<RunResult> = {}): RunResult {
  const base: RunResult = {
    schema: 'stampede.result/3',
    profile: { name: 'realistic', description: '', file: '<memory>', sha256: '0'.repeat(64), overrides: [] },
    seed: 1,
    target: 'model',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 60_000,
    warmupMs: 10_000,
    interrupted: false,
    requests: { expected: 60_000, scheduled: 60_000, sent: 60_000, notSent: 0, ok: 59_990, failed: 10, dropped: 0, inFlightAtEnd: 0, warmup: 10_000 },
    errors: { timeout: 10 },
    rate: { askedRps: 1000, achievedRps: 1000 },
    latencyUs: latency(2000, 20_000),
    serviceTimeUs: latency(2000, 20_000),
    histograms: { latency: encodedLatency(2000, 20_000), serviceTime: encodedLatency(2000, 20_000) },
    byOutcome: { ok: slice(59_990, 0, 2000, 20_000), failed: { ...slice(10, 10, 100_000, 100_000), ok: 0 } },
    byKind: { get: slice(60_000, 10, 2000, 20_000) },
    byClient: { default: { ...slice(60_000, 10, 2000, 20_000), instances: 1 } },
    intervals: digestOf(
      Array.from({ length: 70 }, (_, i) => ({
        tMs: i * 1000,
        warmup: i < 10,
        sent: 1000,
        ok: 1000,
        failed: 0,
        dropped: 0,
        goodputRps: 1000,
        latencyUs: { p50: 2000, p99: 20_000, max: 40_000 },
        gauges: { 'hitRatio.cache': 0.95, inFlight: 3 },
      })),
      1000,
    ),
    driver: { loop: 'open' },
    gauges: gaugeCatalog([SHARED_GAUGES.hitRatio, SHARED_GAUGES.inFlight]),
    wall: { finishedAt: '2026-01-01T00:01:10.000Z', elapsedMs: 70_000 },
  };
  return { ...base, ...changes };
}

export const HEALTHY_GENERATOR: GeneratorFigures = {
  eventLoopLagMs: { mean: 1, p99: 3, max: 8 },
  cpu: 0.3,
  cpuPeak: 0.4,
  sendLatenessUs: { mean: 80, p50: 50, p99: 400, max: 2000 },
  dispatchLatenessUs: { mean: 60, p50: 40, p99: 300, max: 1500 },
  dropped: 0,
  inFlightCap: 10_000,
  waitedForConnection: 0,
  threads: 1,
};
