/*
 * The realism flags, one registry: each id, the severities it is raised at and when it is raised.
 * An id not listed here, or a severity not listed for it, is a type error wherever a flag is raised
 * (flag.ts). flagTable() gives the docs their table of flags from here.
 */

/**
 * How much a departure from reality matters. `invalid`: the measurement cannot support a verdict
 * (the report says INVALID, never PASS); `warn`: the verdict stands but may not hold in production;
 * `info`: worth knowing.
 */
export type Severity = 'invalid' | 'warn' | 'info';

interface FlagSpec {
  /** The severities the flag is raised at, the worst first: which one depends on the evidence. */
  readonly severities: readonly Severity[];
  /** One line for the docs' table: when the flag is raised (Markdown). */
  readonly meaning: string;
}

export const FLAGS = {
  // What a run measured (result-flags.ts).
  'protocol-errors': {
    severities: ['invalid'],
    meaning:
      'the target broke its protocol: connections closed on a `protocol_error` (an answer nobody asked for, a second answer, bytes before a request, a frame that does not parse; an extra answer fails no request, so a PASS could rest on a target not speaking the protocol)',
  },
  'coordinated-omission': {
    severities: ['invalid', 'warn'],
    meaning:
      'the driver ran closed loop; or requests left late (send lateness p99 > max(1 ms, 10% of latency p99)) and latency p99 ≈ service time p99 (lateness not counted: invalid) or counted (warn)',
  },
  'generator-bottleneck': {
    severities: ['invalid', 'warn'],
    meaning:
      "`result.generator.saturated` (with its reasons: lag, CPU, dispatch lateness, drops at the in-flight cap); sent < 90% of the expected requests by more than 4 σ of Poisson noise; dropped sends. Never for requests that waited for a connection: that is the target's saturation ([docs/who-was-the-limit.md](who-was-the-limit.md))",
  },
  'pool-smaller-than-production': {
    severities: ['warn'],
    meaning:
      "the target saturated at the test's concurrency (its pool all busy) and `production.connectionsPerClient × clientInstances` is larger than the test's connections: the wait was the test pool's",
  },
  'too-few-samples': {
    severities: ['invalid', 'warn'],
    meaning: 'an SLO percentile with < 10 (invalid) or < 50 (warn) samples beyond it, e.g. p99.9 from 2,000 requests; before a run, from the expected count',
  },
  'hit-ratio': { severities: ['warn', 'info'], meaning: "a cache's mean `hitRatio` more than 5 points from `production.hitRatio`; above 99.5% without it (info)" },
  'fast-errors': { severities: ['warn'], meaning: "≥ 1% failed, with a median under half the successes' (they pull percentiles down)" },
  // What the profile sets up (profile-flags.ts, production-flags.ts).
  'key-skew': {
    severities: ['warn', 'info'],
    meaning:
      'a top-N key share below half of `production.topKeyShares`; without production: uniform keys (warn), Zipf s < 0.8 (info), each said against the 51 Twitter production clusters with a fitted exponent (Zipf 0.0–2.7, median 1.2)',
  },
  'no-hot-key': { severities: ['warn', 'info'], meaning: "no named hot key and the top key < 5% of lookups (warn when production's top key is ≥ 5%)" },
  'hot-key-small-values': { severities: ['warn', 'info'], meaning: "a hot key but no value above 5 KB (warn when production's values are larger)" },
  'batch-tail': { severities: ['warn'], meaning: "the largest batch the test can send is below half of production's tail (max, else p99.99/p99.9/p99)" },
  'value-size': { severities: ['warn'], meaning: "the test's value p50 or p99 below half of production's" },
  'value-size-fixed': {
    severities: ['warn'],
    meaning:
      "a cache profile (memcached://, redis:// or a model with caches) whose values are all one size, without `production.valueSize`: the 53 Twitter production clusters' mean value sizes span 1 B–67.5 KB",
  },
  'reads-only': {
    severities: ['info'],
    meaning: 'a memcached:// or redis:// profile whose every request is a get: 45 of 53 Twitter production clusters also write, 20 of them in more than 30% of requests',
  },
  'one-hit-wonders': {
    severities: ['warn', 'info'],
    meaning:
      'a cache profile without `keys.oneHitWonders` (and no key file): warn when it names a Twitter production cluster (`name: clusterN-…`) with ≥ 1% one-hit-wonder keys; info for any other cache profile that writes: 37 of 53 clusters have ≥ 1% of keys asked for once (median 7.86%)',
  },
  'no-ttl': {
    severities: ['warn', 'info'],
    meaning:
      "a cache profile that writes (set, add, cas, …) with no `ttl` on any write kind and none on the model's caches: warn when it names a production cluster whose writes set TTLs; info otherwise (the writes of all 53 clusters with a TTL column set them)",
  },
  'connections-per-client': {
    severities: ['warn', 'info'],
    meaning: 'pool size per client and server outside ×/÷2 of `production.connectionsPerClient`; without it, more than 2 (info)',
  },
  'client-instances': { severities: ['warn', 'info'], meaning: 'fewer than a tenth of `production.clientInstances`; one generator for a real target (info)' },
  'no-warmup': { severities: ['warn'], meaning: '`warmup: 0`' },
  'short-run': { severities: ['warn'], meaning: 'measured for less than 20 s' },
  'single-shard': { severities: ['warn', 'info'], meaning: 'fewer than half of `production.shards`; one shard without it (info)' },
  'failover-headroom': {
    severities: ['warn', 'info'],
    meaning: 'a qualification without `production.dataCentres`/`peakRps` (warn); a profile of a multi-DC system without a failover multiplier (info)',
  },
  'retries-timeouts': { severities: ['warn'], meaning: 'no caller or a caller without a timeout in the topology; retries with no backoff (×(1+count) load when everything fails)' },
  loopback: { severities: ['warn', 'info'], meaning: 'a 127.0.0.1 / localhost target reported as capacity; the model (info: modelled, not measured)' },
  'generator-limits-loosened': {
    severities: ['warn'],
    meaning: 'a `generator:` limit (`eventLoopLagP99`, `cpu`, `dispatchLatenessP99`) set looser than its default, on a real target; names the limit, its value and the default',
  },
  'error-rate-ignored': { severities: ['warn'], meaning: 'the SLO has no `errorRate`' },
  'tls-unverified': { severities: ['warn'], meaning: 'an `https://` target with `http.tls.insecure: true`: no server certificate was checked' },
  'tls-unused': {
    severities: ['warn'],
    meaning: '`http.tls` set for a plain `http://` target: the run made no handshake and encrypted nothing, a cheaper path than the one the profile describes',
  },
  // A k6 script's options (interop/k6/lint).
  'no-thresholds': { severities: ['warn'], meaning: 'a k6 script with no thresholds: nothing judges the run' },
  'one-client-shape': { severities: ['info'], meaning: 'a k6 script whose one scenario sends all the traffic: one rate curve, one request shape' },
  // A qualification's search (search-flags.ts).
  'pass-above-fail': {
    severities: ['warn'],
    meaning: 'a qualification: a rate passed every step above a rate the target failed; the capacity is taken below the lower failure',
  },
  'spoiled-step': {
    severities: ['warn'],
    meaning: 'a qualification: a failing step whose failure sat in one interval (see [capacity](capacity.md#qualify)), with what its re-run showed',
  },
  'bracket-unrepeated': {
    severities: ['warn'],
    meaning: 'a qualification: a rate of the deciding bracket ran fewer than `--repeats` times (the search stopped first: `--max-steps`, a signal)',
  },
} as const satisfies Record<string, FlagSpec>;

/** A realism flag's id: one of FLAGS. */
export type FlagId = keyof typeof FLAGS;

/** The severities flag `id` is raised at. */
export type SeverityOf<Id extends FlagId> = (typeof FLAGS)[Id]['severities'][number];

/** Every flag as the docs list it: id, the severities it is raised at, and what it means. */
export function flagTable(): { id: FlagId; severities: readonly Severity[]; meaning: string }[] {
  return (Object.keys(FLAGS) as FlagId[]).map((id) => ({ id, severities: FLAGS[id].severities, meaning: FLAGS[id].meaning }));
}
