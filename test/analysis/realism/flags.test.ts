import { describe, expect, it } from 'vitest';
import { realismFlags, type RealismInput } from '../../../src/analysis/realism/index.ts';
import type { FlagId, Severity } from '../../../src/analysis/realism/registry.ts';
import { runVerdict } from '../../../src/analysis/verdict.ts';
import { analyseRun } from '../../../src/analysis/analyse-run.ts';
import { digestOf } from '../../../src/recorder/interval-digest.ts';
import { createSchedule } from '../../../src/schedule/index.ts';
import { HEALTHY_GENERATOR, profileWith, REALISTIC, REALISTIC_TOPOLOGY, resultWith } from './fixtures.ts';

const REALISTIC_GROUPS = {
  users: { instances: 2000, timeout: '2s' },
  'api-to-cache': { instances: 50, pool: { maxOpen: 2, maxIdle: 2 }, timeout: '100ms', retries: { count: 1, backoff: { base: '10ms' } } },
};

const quietProfile = profileWith({});
const WRITES_WITH_TTL = [
  { kind: 'set', weight: 4, ttl: '300s' },
  { kind: 'get', weight: 1 },
];
const ids = (input: RealismInput) => realismFlags(input).map((f) => f.id);
const flagged = (input: RealismInput, id: string) => realismFlags(input).find((f) => f.id === id);

/** One row per flag: an input that raises it (with the severity expected) and one that does not. */
interface FlagCase {
  id: FlagId;
  severity: Severity;
  trigger: () => RealismInput;
  quiet: () => RealismInput;
  evidence?: RegExp;
}

const HTTP_TRANSPORT = { protocol: 'http' as const, connections: 8, pipelining: 1, connects: 8, statusCodes: { '200': 60_000 }, protocolErrors: 0 };

const CASES: FlagCase[] = [
  {
    id: 'coordinated-omission',
    severity: 'invalid',
    // Requests left 80 ms late, yet latency equals service time: lateness was not counted.
    trigger: () => ({ profile: quietProfile, result: resultWith({ generator: { ...HEALTHY_GENERATOR, sendLatenessUs: { mean: 40_000, p50: 5000, p99: 80_000, max: 120_000 } } }) }),
    quiet: () => ({ profile: quietProfile, result: resultWith({ generator: HEALTHY_GENERATOR }) }),
    evidence: /80ms late/,
  },
  {
    id: 'coordinated-omission',
    severity: 'invalid',
    trigger: () => ({ profile: quietProfile, result: resultWith({ driver: { loop: 'closed' } }) }),
    quiet: () => ({ profile: quietProfile, result: resultWith({ driver: { loop: 'open' } }) }),
  },
  {
    id: 'generator-bottleneck',
    severity: 'invalid',
    trigger: () => ({ profile: quietProfile, result: resultWith({ generator: { ...HEALTHY_GENERATOR, eventLoopLagMs: { mean: 20, p99: 60, max: 90 } } }) }),
    quiet: () => ({ profile: quietProfile, result: resultWith({ generator: HEALTHY_GENERATOR }) }),
    evidence: /event-loop lag p99 60ms > 50ms/,
  },
  {
    id: 'generator-bottleneck',
    severity: 'invalid',
    trigger: () => ({ profile: quietProfile, result: resultWith({ rate: { askedRps: 1000, achievedRps: 700 }, requests: { ...resultWith().requests, sent: 42_000 } }) }),
    // 1% short of 60,000 is Poisson noise (σ ≈ 245), not a saturated generator.
    quiet: () => ({ profile: quietProfile, result: resultWith({ rate: { askedRps: 1000, achievedRps: 990 }, requests: { ...resultWith().requests, sent: 59_400 } }) }),
    evidence: /achieved 700 of 1,000 rps/,
  },
  {
    id: 'generator-bottleneck',
    severity: 'invalid',
    trigger: () => ({ profile: quietProfile, result: resultWith({ requests: { ...resultWith().requests, dropped: 600, scheduled: 60_600 } }) }),
    quiet: () => ({ profile: quietProfile, result: resultWith({ requests: { ...resultWith().requests, dropped: 0 } }) }),
    evidence: /600 sends dropped/,
  },
  {
    id: 'too-few-samples',
    severity: 'invalid',
    // p99.9 from 2,000 requests: 2 beyond it.
    trigger: () => ({
      profile: profileWith({ slo: { latency: [{ percentile: 99.9, max: '50ms' }], errorRate: 0.001 } }),
      result: resultWith({ requests: { ...resultWith().requests, ok: 1990, failed: 10 } }),
    }),
    quiet: () => ({ profile: profileWith({ slo: { latency: [{ percentile: 99.9, max: '50ms' }], errorRate: 0.001 } }), result: resultWith() }),
    evidence: /p99\.9 from 2,000 requests: 2 beyond it/,
  },
  {
    id: 'too-few-samples',
    severity: 'invalid',
    // Before a run: 2 s at 1,000 rps gives 2,000 requests.
    trigger: () => {
      const profile = profileWith({
        warmup: 0,
        phases: [{ type: 'steady', rate: 1000, duration: '2s' }],
        multipliers: [],
        slo: { latency: [{ percentile: 99.9, max: '50ms' }], errorRate: 0.001 },
      });
      return { profile, plan: createSchedule(profile).plan };
    },
    quiet: () => ({ profile: quietProfile, plan: createSchedule(quietProfile).plan }),
  },
  {
    id: 'key-skew',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ keys: { count: 1_000_000, popularity: { type: 'uniform' } } }) }),
    quiet: () => ({ profile: quietProfile }),
    evidence: /top 1 key\(s\): 0\.0001% of lookups in the test vs 30\.0% in production/,
  },
  {
    id: 'key-skew',
    severity: 'warn',
    // Without a production section: uniform keys are flagged on principle.
    trigger: () => ({ profile: profileWith({ keys: { count: 1000, popularity: { type: 'uniform' } }, production: undefined }) }),
    quiet: () => ({ profile: profileWith({ keys: { count: 1000, popularity: { type: 'zipf', s: 1.1 } }, production: undefined }) }),
    // The range and median (1.2117) of the 51 clusters of the public table with a fitted exponent.
    evidence:
      /^1,000 keys drawn uniformly \(the top key gets 0\.1% of lookups\): production cache clusters are skewed, Zipf 0\.0–2\.7 over 51 Twitter production clusters, median 1\.2$/,
  },
  {
    id: 'key-skew',
    severity: 'info',
    trigger: () => ({ profile: profileWith({ keys: { count: 100_000, popularity: { type: 'zipf', s: 0.6 } }, production: undefined }) }),
    quiet: () => ({ profile: profileWith({ keys: { count: 100_000, popularity: { type: 'zipf', s: 0.9 } }, production: undefined }) }),
    // 0.6: above the 12 clusters fitted at 0–0.4565, below the other 39.
    evidence: /; 39 of the Zipf 0\.0–2\.7 over 51 Twitter production clusters, median 1\.2, are more skewed$/,
  },
  {
    id: 'value-size-fixed',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ valueSize: 100, production: undefined }) }),
    // Sizes spread, or production's sizes known (value-size compares with them instead).
    quiet: () => ({ profile: profileWith({ valueSize: { type: 'lognormal', median: 400, sigma: 1 }, production: undefined }) }),
    // The table's 53 mean value sizes: 1 B (cluster21) to 67,485 B (cluster50), median 224 B.
    evidence: /^values all 100 B: the mean value sizes of 53 Twitter production clusters span 1 B–67\.5 KB \(median 224 B\)/,
  },
  {
    id: 'value-size-fixed',
    severity: 'warn',
    // A memcached target is a cache too; one kind with a distribution is enough to spread the sizes.
    trigger: () => ({ profile: profileWith({ target: 'memcached://127.0.0.1:11211', valueSize: 100, production: undefined }) }),
    quiet: () => ({
      profile: profileWith({
        target: 'memcached://127.0.0.1:11211',
        valueSize: 100,
        mix: [
          { kind: 'get', weight: 9 },
          { kind: 'set', weight: 1, valueSize: { type: 'exponential', mean: 300 } },
        ],
        production: undefined,
      }),
    }),
  },
  {
    id: 'reads-only',
    severity: 'info',
    trigger: () => ({
      profile: profileWith({
        target: 'memcached://127.0.0.1:11211',
        mix: [
          { kind: 'get', weight: 1 },
          { kind: 'multiGet', weight: 1, batch: 10 },
        ],
      }),
    }),
    quiet: () => ({
      profile: profileWith({
        target: 'memcached://127.0.0.1:11211',
        mix: [
          { kind: 'get', weight: 9 },
          { kind: 'update', weight: 1 },
        ],
        memcached: { operations: { update: 'set' } },
      }),
    }),
    evidence: /^every request is a get: 45 of 53 Twitter production clusters also write \(set, add, cas, incr, delete\), 20 of them in more than 30% of requests$/,
  },
  {
    id: 'one-hit-wonders',
    severity: 'warn',
    // Named after cluster12, whose keys are 81% one-hit wonders: the profile must have some.
    trigger: () => ({ profile: profileWith({ name: 'cluster12-writes', mix: WRITES_WITH_TTL }) }),
    quiet: () => ({ profile: profileWith({ name: 'cluster12-writes', mix: WRITES_WITH_TTL, keys: { ...REALISTIC.keys, oneHitWonders: 0.6 } }) }),
    evidence: /81\.43% of cluster12's keys are/,
  },
  {
    id: 'one-hit-wonders',
    severity: 'info',
    trigger: () => ({ profile: profileWith({ mix: WRITES_WITH_TTL }) }),
    // Reads only (the incident rehearsals' shape), or a cluster with almost none (cluster10: 0.08%).
    quiet: () => ({ profile: profileWith({ name: 'cluster10-adds', mix: WRITES_WITH_TTL }) }),
    evidence: /^no key is asked for only once by design: 37 of 53 Twitter production clusters have ≥ 1% of keys asked for once \(median 7\.86%\)$/,
  },
  {
    id: 'no-ttl',
    severity: 'warn',
    trigger: () => ({
      profile: profileWith({
        name: 'cluster12-writes',
        mix: [
          { kind: 'set', weight: 4 },
          { kind: 'get', weight: 1 },
        ],
      }),
    }),
    quiet: () => ({ profile: profileWith({ name: 'cluster12-writes', mix: WRITES_WITH_TTL }) }),
    evidence: /cluster12's writes set 300s:0\.98 299s:0\.02/,
  },
  {
    id: 'no-ttl',
    severity: 'info',
    trigger: () => ({
      profile: profileWith({
        mix: [
          { kind: 'add', weight: 1 },
          { kind: 'get', weight: 1 },
        ],
      }),
    }),
    // The model's cache expiring entries is a TTL too; reads and deletes set none.
    quiet: () => ({
      profile: profileWith({
        mix: [
          { kind: 'add', weight: 1 },
          { kind: 'get', weight: 1 },
        ],
        topologyChanges: { caches: { cache: { ...REALISTIC_TOPOLOGY.caches.cache, ttl: '60s' } } },
      }),
    }),
  },
  {
    id: 'no-hot-key',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ keys: { count: 1_000_000, popularity: { type: 'zipf', s: 0.8 } } }) }),
    quiet: () => ({ profile: quietProfile }),
  },
  {
    id: 'hot-key-small-values',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ valueSize: 300 }) }),
    quiet: () => ({ profile: quietProfile }),
    evidence: /largest value sent 300 B.*production values reach 12 KB/,
  },
  {
    id: 'batch-tail',
    severity: 'warn',
    // The Bluesky shape: production sends 20k-key batches, the test never more than 50.
    trigger: () => ({ profile: profileWith({ batch: { type: 'uniform', min: 1, max: 50 } }) }),
    quiet: () => ({ profile: quietProfile }),
    evidence: /largest batch the test sends: 50 keys; production: 20,000/,
  },
  {
    id: 'value-size',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ valueSize: { type: 'lognormal', median: 100, sigma: 0.5 } }) }),
    quiet: () => ({ profile: quietProfile }),
    evidence: /p50 100 B vs 400 B in production/,
  },
  {
    id: 'connections-per-client',
    severity: 'warn',
    // 2018-06: 4 connections per client where production used 1–2 with pipelining.
    trigger: () => ({
      profile: profileWith({
        productionChanges: { connectionsPerClient: 1 },
        topologyChanges: { clientGroups: { ...REALISTIC_GROUPS, 'api-to-cache': { ...REALISTIC_GROUPS['api-to-cache'], pool: { maxOpen: 4 } } } },
      }),
    }),
    quiet: () => ({ profile: quietProfile }),
    evidence: /4 per client and server vs 1 in production/,
  },
  {
    id: 'client-instances',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ topologyChanges: { clientGroups: { ...REALISTIC_GROUPS, users: { instances: 1, timeout: '2s' } } } }) }),
    quiet: () => ({ profile: quietProfile }),
    evidence: /1 client instance\(s\) in the test vs 2,000 in production/,
  },
  {
    id: 'no-warmup',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ warmup: 0 }) }),
    quiet: () => ({ profile: quietProfile }),
  },
  {
    id: 'short-run',
    severity: 'warn',
    trigger: () => ({ profile: quietProfile, result: resultWith({ durationMs: 5000 }) }),
    quiet: () => ({ profile: quietProfile, result: resultWith() }),
  },
  {
    id: 'hit-ratio',
    severity: 'warn',
    trigger: () => ({
      profile: quietProfile,
      result: resultWith({
        intervals: digestOf(
          resultWith().intervals.series.map((i) => ({ ...i, gauges: { 'hitRatio.cache': 0.8 } })),
          1000,
        ),
      }),
    }),
    quiet: () => ({ profile: quietProfile, result: resultWith() }),
    evidence: /80\.0% in the test vs 95\.0% in production/,
  },
  {
    id: 'single-shard',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ topologyChanges: { caches: { cache: { shards: 1 } } } }) }),
    quiet: () => ({ profile: quietProfile }),
  },
  {
    id: 'failover-headroom',
    severity: 'warn',
    trigger: () => ({ profile: quietProfile, qualification: { failoverComputed: false } }),
    quiet: () => ({ profile: quietProfile, qualification: { failoverComputed: true } }),
  },
  {
    id: 'retries-timeouts',
    severity: 'warn',
    // 2014-01: immediate retries triple the load when everything fails.
    trigger: () => ({
      profile: profileWith({
        topologyChanges: { clientGroups: { ...REALISTIC_GROUPS, 'api-to-cache': { ...REALISTIC_GROUPS['api-to-cache'], retries: { count: 2, backoff: { base: '0s' } } } } },
      }),
    }),
    quiet: () => ({ profile: quietProfile }),
    evidence: /×3 attempts/,
  },
  {
    id: 'retries-timeouts',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ topologyChanges: { caller: undefined } }) }),
    quiet: () => ({ profile: quietProfile }),
    evidence: /no caller/,
  },
  {
    id: 'protocol-errors',
    severity: 'invalid',
    // A target that answered some requests twice: nothing failed, yet the connection broke the protocol.
    trigger: () => ({ profile: quietProfile, result: resultWith({ driver: { loop: 'open', transport: { ...HTTP_TRANSPORT, protocolErrors: 3 } } }) }),
    quiet: () => ({ profile: quietProfile, result: resultWith({ driver: { loop: 'open', transport: HTTP_TRANSPORT } }) }),
    evidence: /^3 connection\(s\) closed on a protocol error \(0 request\(s\) failed with protocol_error\): unsolicited, extra or malformed http responses/,
  },
  {
    id: 'fast-errors',
    severity: 'warn',
    trigger: () => {
      const r = resultWith();
      return {
        profile: quietProfile,
        result: resultWith({
          byOutcome: { ok: r.byOutcome.ok, failed: { ...r.byOutcome.failed, requests: 3000, ok: 0, failed: 3000, latencyUs: { ...r.byOutcome.failed.latencyUs, p50: 200 } } },
        }),
      };
    },
    quiet: () => ({ profile: quietProfile, result: resultWith() }),
  },
  {
    id: 'error-rate-ignored',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ slo: { latency: [{ percentile: 99, max: '50ms' }] } }), result: resultWith() }),
    quiet: () => ({ profile: quietProfile, result: resultWith() }),
    evidence: /10 failed/,
  },
  {
    id: 'loopback',
    severity: 'warn',
    trigger: () => ({ profile: quietProfile, result: resultWith({ target: 'http://127.0.0.1:8080' }) }),
    quiet: () => ({ profile: quietProfile, result: resultWith({ target: 'http://10.1.2.3:8080' }) }),
  },
  {
    id: 'tls-unverified',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ http: { tls: { insecure: true } } }), result: resultWith({ target: 'https://10.1.2.3:8443' }) }),
    // Verified, or insecure set on a target that is not TLS at all.
    quiet: () => ({ profile: profileWith({ http: { tls: { insecure: true } } }), result: resultWith({ target: 'http://10.1.2.3:8080' }) }),
    evidence: /https:\/\/10\.1\.2\.3:8443: http\.tls\.insecure: true/,
  },
  {
    id: 'tls-unused',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ http: { tls: { ca: 'ca.pem', servername: 'api.internal' } } }), result: resultWith({ target: 'http://10.1.2.3:8080' }) }),
    // The same settings on an https:// target are used.
    quiet: () => ({ profile: profileWith({ http: { tls: { ca: 'ca.pem', servername: 'api.internal' } } }), result: resultWith({ target: 'https://10.1.2.3:8443' }) }),
    evidence: /http:\/\/10\.1\.2\.3:8080: http\.tls sets ca, servername, but the target is http:\/\//,
  },
  {
    id: 'generator-limits-loosened',
    severity: 'warn',
    trigger: () => ({ profile: profileWith({ generator: { dispatchLatenessP99: '40ms' } }), result: resultWith({ target: 'http://10.1.2.3:8080' }) }),
    // Tightening a limit is always allowed; the model has no generator to loosen.
    quiet: () => ({ profile: profileWith({ generator: { dispatchLatenessP99: '5ms', cpu: 0.5 } }), result: resultWith({ target: 'http://10.1.2.3:8080' }) }),
    evidence: /generator\.dispatchLatenessP99 40ms \(default 10ms\)/,
  },
];

describe('realism flags: each is raised by its trigger and quiet otherwise', () => {
  it.each(CASES.map((c, i) => [`${c.id} #${i}`, c] as const))('%s', (_name, c) => {
    const raised = flagged(c.trigger(), c.id);
    expect(raised, `${c.id} should be raised`).toBeDefined();
    expect(raised!.severity).toBe(c.severity);
    if (c.evidence) expect(raised!.evidence).toMatch(c.evidence);
    expect(raised!.incident).not.toBe('');
    expect(raised!.fix).not.toBe('');
    expect(ids(c.quiet())).not.toContain(c.id);
  });

  it('raises nothing but the model note on a realistic profile and result', () => {
    const flags = realismFlags({ profile: quietProfile, plan: createSchedule(quietProfile).plan, result: resultWith({ generator: HEALTHY_GENERATOR }) });
    expect(flags.map((f) => `${f.severity} ${f.id}`)).toEqual(['info loopback']);
  });

  it('lists invalid flags first, and an invalid flag turns a PASS into INVALID', () => {
    const input = { profile: profileWith({ warmup: 0 }), result: resultWith({ rate: { askedRps: 1000, achievedRps: 500 }, requests: { ...resultWith().requests, sent: 30_000 } }) };
    const flags = realismFlags(input);
    expect(flags[0]!.severity).toBe('invalid');
    const check = { name: 'p99 ≤ 50ms', pass: true, actual: 20_000, limit: 50_000, unit: 'us' as const };
    expect(runVerdict({ pass: true, checks: [check] }, flags)).toBe('INVALID');
    expect(runVerdict({ pass: true, checks: [check] }, realismFlags({ profile: quietProfile, result: resultWith() }))).toBe('PASS');
    expect(runVerdict({ pass: false, checks: [{ ...check, pass: false }] }, [])).toBe('FAIL');
    expect(runVerdict({ pass: true, checks: [check] }, [], true)).toBe('INVALID');
    expect(runVerdict({ pass: false, checks: [{ ...check, pass: false }] }, [], true)).toBe('FAIL');
  });
});

describe('generator-health limits come from the profile', () => {
  const lateDispatch = { ...HEALTHY_GENERATOR, dispatchLatenessUs: { mean: 5000, p50: 3000, p99: 25_000, max: 40_000 } };
  const realTarget = { target: 'http://10.1.2.3:8080', generator: lateDispatch };

  it('judges dispatch lateness against the default limit when the profile sets none', () => {
    const raised = flagged({ profile: quietProfile, result: resultWith(realTarget) }, 'generator-bottleneck');
    expect(raised?.severity).toBe('invalid');
    expect(raised?.evidence).toMatch(/dispatch lateness p99 25ms > 10ms/);
  });

  it('judges CPU on the busiest measured interval: a run-long mean under the limit hides saturated seconds', () => {
    const saturatedStretch = { ...HEALTHY_GENERATOR, cpu: 0.898, cpuPeak: 0.999 };
    const raised = flagged({ profile: quietProfile, result: resultWith({ target: 'http://10.1.2.3:8080', generator: saturatedStretch }) }, 'generator-bottleneck');
    expect(raised?.severity).toBe('invalid');
    expect(raised?.evidence).toMatch(/generator CPU 99.9% of a core in its busiest measured interval > 90% of a core/);
  });

  it('judges against a loosened limit, and says so with a warning of its own (never a silent PASS)', () => {
    const profile = profileWith({ generator: { dispatchLatenessP99: '30ms' } });
    const flags = realismFlags({ profile, result: resultWith(realTarget) });
    expect(flags.find((f) => f.id === 'generator-bottleneck')).toBeUndefined();
    const loosened = flags.find((f) => f.id === 'generator-limits-loosened');
    expect(loosened?.severity).toBe('warn');
    expect(loosened?.evidence).toBe('generator.dispatchLatenessP99 30ms (default 10ms)');
  });

  it('shows the limits actually used in analysis.json, with the default beside a changed one', () => {
    const profile = profileWith({ generator: { dispatchLatenessP99: '30ms', cpu: 0.95 } });
    const analysis = analyseRun(resultWith(realTarget), profile);
    const shown = Object.fromEntries(analysis.limits.map((l) => [l.name, l.value]));
    expect(shown['dispatch lateness p99']).toBe('30ms (profile; default 10ms)');
    expect(shown['generator CPU']).toBe('95% of a core (profile; default 90% of a core)');
    expect(shown['generator event-loop lag p99']).toBe('50ms');
    expect(analysis.generator?.saturated).toBe(false);
  });
});

describe('coordinated omission, judged on mean lateness', () => {
  const lateGenerator = { ...HEALTHY_GENERATOR, sendLatenessUs: { mean: 8000, p50: 100, p99: 40_000, max: 90_000 } };
  const base = resultWith();

  it('is invalid when latency’s mean lacks the mean lateness: latency was measured from the actual send', () => {
    const result = resultWith({ generator: lateGenerator });
    expect(flagged({ profile: quietProfile, result }, 'coordinated-omission')?.severity).toBe('invalid');
  });

  it('is only a warning when latency includes the lateness, even if the late requests are not the slow ones (equal p99s)', () => {
    // Means add up (latency = lateness + service time per request); p99s need not differ at all.
    const slipped = { ...lateGenerator, dispatchLatenessUs: { mean: 7000, p50: 80, p99: 35_000, max: 80_000 } };
    const result = resultWith({ generator: slipped, latencyUs: { ...base.latencyUs, mean: base.serviceTimeUs.mean + 8000 } });
    expect(result.latencyUs.p99).toBe(result.serviceTimeUs.p99);
    const raised = flagged({ profile: quietProfile, result }, 'coordinated-omission');
    expect(raised?.severity).toBe('warn');
    expect(raised?.evidence).toMatch(/^dispatch lateness p99 35ms, send lateness p99 40ms \(latency p99 .+; counted from the intended time\)$/);
  });

  it('says nothing of the generator when the late sends waited for connections the target held and the pacer kept time', () => {
    // A target that closes every connection, or holds them all busy: the sends wait for a connection,
    // not for the generator; analysis.saturation names the target.
    const waited = { ...lateGenerator, waitedForConnection: 12_000 };
    const result = resultWith({ generator: waited, latencyUs: { ...base.latencyUs, mean: base.serviceTimeUs.mean + 8000 } });
    expect(waited.dispatchLatenessUs.p99).toBeLessThan(1000);
    expect(flagged({ profile: quietProfile, result }, 'coordinated-omission')).toBeUndefined();
  });
});

describe('flags describe what ran', () => {
  // A profile written for the model (its topology has immediate retries and a 16-connection pool), sent to memcached with --target.
  const modelProfile = profileWith({
    topologyChanges: {
      clientGroups: {
        ...REALISTIC_GROUPS,
        'api-to-cache': { ...REALISTIC_GROUPS['api-to-cache'], pool: { maxOpen: 16, maxIdle: 16 }, retries: { count: 2, backoff: { base: '0s' } } },
      },
    },
    productionChanges: { connectionsPerClient: 2 },
  });
  const sentTo = (target: string) => resultWith({ target, generator: HEALTHY_GENERATOR });

  it('raises no model-topology flag on a run that did not use the topology', () => {
    const onModel = realismFlags({ profile: modelProfile, result: sentTo('model') });
    expect(onModel.map((f) => f.id)).toEqual(expect.arrayContaining(['retries-timeouts', 'connections-per-client']));
    expect(onModel.find((f) => f.id === 'connections-per-client')!.evidence).toMatch(/^16 per client/);
    const onMemcached = realismFlags({ profile: modelProfile, result: sentTo('memcached://127.0.0.1:11211') });
    expect(onMemcached.map((f) => f.id)).not.toContain('retries-timeouts');
    expect(onMemcached.find((f) => f.id === 'loopback')!.severity).toBe('warn');
  });

  it('judges the pool of the driver that ran against production', () => {
    const flags = realismFlags({ profile: { ...modelProfile, memcached: { ...modelProfile.memcached, connectionsPerShard: 8 } }, result: sentTo('memcached://127.0.0.1:11211') });
    expect(flags.find((f) => f.id === 'connections-per-client')!.evidence).toBe('8 per client and server vs 2 in production');
  });
});
