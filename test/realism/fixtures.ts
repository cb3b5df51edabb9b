import type { ProfileInput } from '../../src/profile/schema.ts';
import type { Profile } from '../../src/profile/types.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { makeProfile } from '../helpers/profile.ts';

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
  batch: { type: 'mixture', of: [{ weight: 0.9999, type: 'uniform', min: 1, max: 50 }, { weight: 0.0001, type: 'uniform', min: 15000, max: 20000 }] },
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

/** REALISTIC with some fields replaced (shallowly; `production` and `topology` merge one level deep). */
export function profileWith(changes: Partial<ProfileInput> & { productionChanges?: Record<string, unknown>; topologyChanges?: Record<string, unknown> }): Profile {
  const { productionChanges, topologyChanges, ...rest } = changes;
  return makeProfile({
    ...REALISTIC,
    ...rest,
    production: { ...REALISTIC.production, ...productionChanges },
    topology: { ...REALISTIC_TOPOLOGY, ...topologyChanges } as ProfileInput['topology'],
  } as never);
}

const latency = (p50: number, p99: number) => ({ count: 60_000, mean: p50, p50, p90: p99 / 2, p99, p999: p99 * 1.5, max: p99 * 2 });

/** A measured result of REALISTIC that raises nothing; tests change one figure at a time. */
export function resultWith(changes: Partial<RunResult> = {}): RunResult {
  const base: RunResult = {
    schema: 'stampede.result/1',
    profile: { name: 'realistic', description: '', file: '<memory>', sha256: '0'.repeat(64), overrides: [] },
    seed: 1,
    target: 'model',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 60_000,
    warmupMs: 10_000,
    interrupted: false,
    requests: { expected: 60_000, scheduled: 60_000, sent: 60_000, ok: 59_990, failed: 10, dropped: 0, inFlightAtEnd: 0, warmup: 10_000 },
    errors: { timeout: 10 },
    rate: { askedRps: 1000, achievedRps: 1000 },
    latencyUs: latency(2000, 20_000),
    serviceTimeUs: latency(2000, 20_000),
    byOutcome: { ok: { requests: 59_990, ok: 59_990, failed: 0, latencyUs: latency(2000, 20_000) }, failed: { requests: 10, ok: 0, failed: 10, latencyUs: latency(100_000, 100_000) } },
    byKind: { get: { requests: 60_000, ok: 59_990, failed: 10, latencyUs: latency(2000, 20_000) } },
    byClient: { default: { requests: 60_000, ok: 59_990, failed: 10, latencyUs: latency(2000, 20_000), instances: 1 } },
    intervals: Array.from({ length: 70 }, (_, i) => ({
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
    slo: { pass: true, checks: [{ name: 'p99 ≤ 50ms', pass: true, actual: 20_000, limit: 50_000, unit: 'us' }] },
    driver: {},
    wall: { finishedAt: '2026-01-01T00:01:10.000Z', elapsedMs: 70_000 },
  };
  return { ...base, ...changes };
}

export const HEALTHY_GENERATOR = {
  eventLoopLagMs: { mean: 1, p99: 3, max: 8 },
  cpu: 0.3,
  sendLatenessUs: { p50: 50, p99: 400, max: 2000 },
  saturated: false,
  reasons: [],
};
