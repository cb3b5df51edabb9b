import { formatUs } from '../format.ts';
import { callerGroups } from '../../profile/protocols/model/spec.ts';
import { measuredDurationUs } from '../../profile/phases.ts';
import { isLoopbackHost } from '../../profile/target.ts';
import { quantile, upperBound } from './distribution-stats.ts';
import { formatBytes, formatCount, formatShare } from '../format.ts';
import type { GeneratorLimits } from '../../profile/schema.ts';
import { formatCpu, GENERATOR_LIMITS, MIN_STEADY_RUN_US, PRODUCTION_FACTOR, SMALL_VALUE_BYTES } from '../limits.ts';
import { INCIDENT } from './incidents.ts';
import { topKeyShare } from './key-skew.ts';
import { trafficSizes } from './traffic-shape.ts';
import { flag } from './flag.ts';
import { clusterZipfRange, clustersMoreSkewed, fixedValueSize, noOneHitWonders, noTtl, readsOnly, uniformKeysEvidence } from './production-flags.ts';
import type { ProfileRule, RealismFlag } from './types.ts';

/*
 * Flags knowable before a run: they read the profile, its `production:` section and, for the
 * model, the topology. Thresholds are factors of two against production: closer than that is
 * within what a rehearsal can claim; further is a different system.
 */

export const keySkew: ProfileRule = ({ profile }) => {
  const production = profile.production?.topKeyShares;
  if (production) {
    const gaps = production.map((p) => ({ ...p, test: topKeyShare(profile.keys, p.keys) })).filter((p) => p.test * PRODUCTION_FACTOR < p.share);
    if (gaps.length === 0) return [];
    const worst = gaps.reduce((a, b) => (b.share / Math.max(b.test, 1e-12) > a.share / Math.max(a.test, 1e-12) ? b : a));
    return [
      flag(
        'key-skew',
        'warn',
        'keys less skewed than production',
        `top ${formatCount(worst.keys)} key(s): ${formatShare(worst.test)} of lookups in the test vs ${formatShare(worst.share)} in production`,
        INCIDENT.twitter2014b,
        'raise keys.popularity skew (zipf s) or add keys.hot entries until the top-key shares match production',
      ),
    ];
  }
  // Production's own keys and weights need no rule of thumb.
  if (profile.keys.hot.length > 0 || profile.keys.sample?.cumulative) return [];
  const p = profile.keys.popularity;
  if (p.type === 'uniform' && profile.keys.count > 1) {
    return [
      flag(
        'key-skew',
        'warn',
        'uniform keys',
        uniformKeysEvidence(profile.keys.count, formatShare(topKeyShare(profile.keys, 1))),
        INCIDENT.twitter2014b,
        "use keys.popularity {type: zipf, s: 1.2} (or production's measured skew: stampede trace stats of its traffic) — real key traffic is skewed",
      ),
    ];
  }
  if (p.type === 'zipf' && p.s < 0.8) {
    return [
      flag(
        'key-skew',
        'info',
        'mildly skewed keys',
        `zipf s = ${p.s}: the top 1% of keys get ${formatShare(topKeyShare(profile.keys, Math.ceil(profile.keys.count / 100)))} of lookups; ${clustersMoreSkewed(p.s)} of the ${clusterZipfRange()}, are more skewed`,
        INCIDENT.twitter2014b,
        "measure production's skew and put it in production.topKeyShares",
      ),
    ];
  }
  return [];
};

export const noHotKey: ProfileRule = ({ profile }) => {
  if (profile.keys.hot.length > 0) return [];
  const top1 = topKeyShare(profile.keys, 1);
  const productionTop1 = profile.production?.topKeyShares?.find((s) => s.keys === 1)?.share;
  if (top1 >= 0.05) return [];
  const severity = productionTop1 !== undefined && productionTop1 >= 0.05 ? 'warn' : 'info';
  const seen = productionTop1 !== undefined ? ` (production: ${formatShare(productionTop1)})` : '';
  return [
    flag(
      'no-hot-key',
      severity,
      'no hot key',
      `the most popular key gets ${formatShare(top1)} of lookups${seen}`,
      INCIDENT.twitter2014b,
      'add a keys.hot entry (e.g. {key: viral, start: 10s, rise: 5s, peak: 0.3}) to rehearse one item going viral',
    ),
  ];
};

export const hotKeySmallValues: ProfileRule = ({ profile }) => {
  const hasHotKey = profile.keys.hot.length > 0 || topKeyShare(profile.keys, 1) >= 0.05;
  if (!hasHotKey) return [];
  const largest = upperBound(trafficSizes(profile).valueSize);
  if (largest > SMALL_VALUE_BYTES) return [];
  const prodLarge = profile.production?.valueSize?.max ?? profile.production?.valueSize?.p9999 ?? profile.production?.valueSize?.p999 ?? profile.production?.valueSize?.p99;
  const severity = prodLarge !== undefined && prodLarge > SMALL_VALUE_BYTES ? 'warn' : 'info';
  const seen = prodLarge !== undefined ? `; production values reach ${formatBytes(prodLarge)}` : '';
  return [
    flag(
      'hot-key-small-values',
      severity,
      'hot keys only with small values',
      `largest value sent ${formatBytes(largest)} (≤ ${formatBytes(SMALL_VALUE_BYTES)})${seen}`,
      INCIDENT.twitter2018a,
      'give the hot key a large value (a valueSize with a tail above 5 KB): large hot values saturate NICs and evade sampling detectors',
    ),
  ];
};

export const batchTail: ProfileRule = ({ profile }) => {
  const observed = profile.production?.batchSize;
  const tail = observed && (observed.max ?? observed.p9999 ?? observed.p999 ?? observed.p99);
  if (tail === undefined) return [];
  const largest = upperBound(trafficSizes(profile).batch);
  if (largest * PRODUCTION_FACTOR >= tail) return [];
  return [
    flag(
      'batch-tail',
      'warn',
      "batch sizes far below production's tail",
      `largest batch the test sends: ${formatCount(largest)} keys; production: ${formatCount(tail)}`,
      INCIDENT.bluesky,
      "add a mixture component (or a client) with production's largest batches, e.g. 0.01% uniform 15000–20000",
    ),
  ];
};

export const valueSizes: ProfileRule = ({ profile }) => {
  const observed = profile.production?.valueSize;
  if (!observed) return [];
  const sizes = trafficSizes(profile).valueSize;
  const gaps = (
    [
      ['p50', 0.5],
      ['p99', 0.99],
    ] as const
  ).flatMap(([name, q]) => {
    const prod = observed[name];
    if (prod === undefined) return [];
    const test = quantile(sizes, q);
    return test * PRODUCTION_FACTOR < prod ? [`${name} ${formatBytes(test)} vs ${formatBytes(prod)} in production`] : [];
  });
  if (gaps.length === 0) return [];
  return [
    flag(
      'value-size',
      'warn',
      "values smaller than production's",
      gaps.join('; '),
      INCIDENT.twitter2018a,
      "set valueSize to production's distribution (e.g. lognormal with its median and p99)",
    ),
  ];
};

export const connectionsPerClient: ProfileRule = ({ profile, protocol }) => {
  const test = protocol.realism.connectionsPerClient(profile);
  if (test === undefined) return [];
  const prod = profile.production?.connectionsPerClient;
  if (prod !== undefined) {
    if (Number.isFinite(test) && test <= prod * PRODUCTION_FACTOR && test * PRODUCTION_FACTOR >= prod) return [];
    return [
      flag(
        'connections-per-client',
        'warn',
        'connections per client far from production',
        `${formatCount(test)} per client and server vs ${prod} in production`,
        INCIDENT.twitter2018b,
        `set the pool (maxOpen / connections) to production's ${prod}; with pipelining 1–2 suffice, more raise the tail`,
      ),
    ];
  }
  if (test <= 2) return [];
  return [
    flag(
      'connections-per-client',
      'info',
      'many connections per client',
      `${formatCount(test)} connections per client and server; production clients with pipelining use 1–2`,
      INCIDENT.twitter2018b,
      "state production's figure in production.connectionsPerClient",
    ),
  ];
};

export const clientInstances: ProfileRule = ({ profile, protocol }) => {
  // The profile's clients, or the model's caller groups when they are more.
  const test = Math.max(
    profile.clients.reduce((sum, c) => sum + c.instances, 0),
    protocol.realism.clientInstances?.(profile) ?? 0,
  );
  const prod = profile.production?.clientInstances;
  if (prod !== undefined) {
    if (test * 10 >= prod) return [];
    return [
      flag(
        'client-instances',
        'warn',
        'a few client instances stand in for many',
        `${formatCount(test)} client instance(s) in the test vs ${formatCount(prod)} in production`,
        INCIDENT.twitter2014a,
        "raise instances (clients[].instances or the caller group's instances): connection counts, TIME_WAIT and per-client limits scale with them",
      ),
    ];
  }
  if (!protocol.simulated && test === 1) {
    return [
      flag(
        'client-instances',
        'info',
        'one generator stands in for every client',
        'one client instance sends all the traffic',
        INCIDENT.twitter2014a,
        'state production.clientInstances, or run several generators',
      ),
    ];
  }
  return [];
};

export const warmup: ProfileRule = ({ profile, protocol }) => {
  if (profile.warmup > 0) return [];
  const cold = protocol.simulated && Object.values(profile.topology?.caches ?? {}).some((c) => !c.warm);
  return [
    flag(
      'no-warmup',
      'warn',
      'no warm-up',
      `warm-up 0 s${cold ? ': a cold cache and empty pools are measured' : ': pools and connections are measured while they open'}`,
      INCIDENT.twitter2013,
      'add `warmup: 10s` (traffic at the first rate, not measured)',
    ),
  ];
};

export const shortRun: ProfileRule = ({ profile, result }) => {
  const us = result ? result.durationMs * 1000 : measuredDurationUs(profile);
  if (us >= MIN_STEADY_RUN_US) return [];
  return [
    flag(
      'short-run',
      'warn',
      'run too short for steady state',
      `measured for ${formatUs(us)} (< ${formatUs(MIN_STEADY_RUN_US)})`,
      INCIDENT.twitter2018b,
      'measure at least 20–60 s per rate after a warm-up',
    ),
  ];
};

export const singleShard: ProfileRule = ({ profile, target, protocol }) => {
  const prod = profile.production?.shards;
  const shards = protocol.realism.shards(target, profile);
  if (shards === undefined) return [];
  if (prod !== undefined) {
    if (shards * PRODUCTION_FACTOR >= prod) return [];
    return [
      flag(
        'single-shard',
        'warn',
        'fewer shards than the production cluster',
        `${shards} shard(s) in the test vs ${prod} in production`,
        INCIDENT.twitter2018a,
        "model (or deploy) production's shard count: skew and hashing only show across many shards",
      ),
    ];
  }
  if (shards > 1) return [];
  return [
    flag(
      'single-shard',
      'info',
      'a single shard or node',
      'every key lives on one cache node',
      INCIDENT.twitter2018a,
      'state production.shards; with one node, hot-shard and rehash effects cannot appear',
    ),
  ];
};

export const failoverHeadroom: ProfileRule = ({ profile, qualification }) => {
  const dcs = profile.production?.dataCentres;
  if (qualification) {
    if (qualification.failoverComputed) return [];
    return [
      flag(
        'failover-headroom',
        'warn',
        'capacity claimed without failover headroom',
        dcs === 1 ? 'production.dataCentres is 1: nothing can fail over' : 'no production.dataCentres and peakRps: the N+1 load was not computed',
        INCIDENT.twitter2018b,
        "add production: {peakRps, dataCentres} so qualification checks capacity against one DC's traffic shifted here",
      ),
    ];
  }
  if (dcs === undefined || dcs < 2) return [];
  if (profile.multipliers.some((m) => m.factor > 1)) return [];
  return [
    flag(
      'failover-headroom',
      'info',
      'failover not rehearsed',
      `${dcs} data centres in production, no traffic multiplier in the profile`,
      INCIDENT.twitter2018b,
      `add multipliers: [{at: 30s, until: 60s, factor: ${Number((dcs / (dcs - 1)).toFixed(2))}, label: failover}], or run stampede qualify`,
    ),
  ];
};

export const retriesAndTimeouts: ProfileRule = ({ profile, protocol }) => {
  const t = profile.topology;
  if (!protocol.simulated || t === undefined) return [];
  const flags: RealismFlag[] = [];
  const callers = callerGroups(t);
  const untimed = callers.filter((g) => !Number.isFinite(t.clientGroups[g]?.timeout ?? Infinity));
  if (callers.length === 0 || untimed.length > 0) {
    const evidence = callers.length === 0 ? 'topology has no caller: users wait forever and never retry' : `caller group ${untimed.join(', ')} has timeout: inf`;
    flags.push(
      flag(
        'retries-timeouts',
        'warn',
        'client timeouts not modelled',
        evidence,
        INCIDENT.blackFriday,
        'set topology.caller and give its client group the production timeout (and retries)',
      ),
    );
  }
  for (const [name, g] of Object.entries(t.clientGroups)) {
    if (g.retries.count === 0 || g.retries.backoff.base > 0) continue;
    flags.push(
      flag(
        'retries-timeouts',
        'warn',
        'retries multiply load under failure',
        `group ${name}: ${g.retries.count} immediate retries → ×${g.retries.count + 1} attempts when everything fails`,
        INCIDENT.twitter2014a,
        `do the math for 100% failure: backoff (retries.backoff.base), a retry budget, or --set topology.clientGroups.${name}.retries.count=0`,
      ),
    );
  }
  return flags;
};

export const loopback: ProfileRule = ({ profile, target, protocol }) => {
  if (protocol.simulated)
    return [
      flag(
        'loopback',
        'info',
        'modelled, not measured',
        'target is the model core: capacity of the topology as written, not of hardware',
        INCIDENT.twitter2018b,
        'confirm the figure on real hosts before provisioning on it',
      ),
    ];
  if (protocol.hosts(target).every(isLoopbackHost))
    return [
      flag(
        'loopback',
        'warn',
        'loopback target',
        `${target.text}: generator and target share one host and no network`,
        INCIDENT.twitter2018b,
        'note it in the report, or run the target on its own hosts before quoting capacity',
      ),
    ];
  if (protocol.realism.shards(target, profile) === 1)
    return [flag('loopback', 'info', 'single target host', `${target.text}: one server`, INCIDENT.twitter2018b, 'qualify against the production shard count')];
  return [];
};

/**
 * A `generator:` limit set looser than its default: the run may pass on a generator that shaped it.
 * Allowed (a busy shared machine needs it), never silent. Real targets only: the model has no generator.
 */
export const generatorLimitsLoosened: ProfileRule = ({ profile, protocol }) => {
  if (protocol.simulated) return [];
  // The connection-wait threshold only decides when a target's saturation is reported: no generator verdict rests on it.
  const loosened = (Object.keys(GENERATOR_LIMITS) as (keyof GeneratorLimits)[]).filter(
    (key) => key !== 'connectionWaitLatenessP99' && profile.generator[key] > GENERATOR_LIMITS[key],
  );
  if (loosened.length === 0) return [];
  const shown = (key: keyof GeneratorLimits, v: number) => (key === 'cpu' ? formatCpu(v) : formatUs(v));
  return [
    flag(
      'generator-limits-loosened',
      'warn',
      'generator-health limits loosened',
      loosened.map((key) => `generator.${key} ${shown(key, profile.generator[key])} (default ${shown(key, GENERATOR_LIMITS[key])})`).join('; '),
      INCIDENT.openlinker,
      'run the generator on a quieter or bigger machine (or more --workers) and return to the default limits',
    ),
  ];
};

export const errorRateIgnored: ProfileRule = ({ profile, result }) => {
  if (profile.slo.errorRate !== undefined) return [];
  const failed = result ? result.requests.failed + result.requests.dropped : undefined;
  const total = result ? result.requests.ok + result.requests.failed + result.requests.dropped : 0;
  const evidence =
    failed === undefined ? 'the SLO has no errorRate' : `${formatCount(failed)} failed (${formatShare(total > 0 ? failed / total : 0)}) and the SLO has no errorRate`;
  return [flag('error-rate-ignored', 'warn', 'error rate ignored', evidence, INCIDENT.twitter2013, 'add slo.errorRate (e.g. 0.001)')];
};

/**
 * An https:// target with `http.tls.insecure`: the handshakes were real, but no certificate was
 * checked, so the run says nothing of whether a real client would connect at all.
 */
export const tlsUnverified: ProfileRule = ({ profile, target, protocol }) => {
  if (protocol.realism.encrypted?.(target) !== true || !profile.http.tls.insecure) return [];
  return [
    flag(
      'tls-unverified',
      'warn',
      'certificate checking off',
      `${target.text}: http.tls.insecure: true — the server certificate was not verified`,
      INCIDENT.twitter2018b,
      "give the server's CA with http.tls.ca (and its name with http.tls.servername) instead of insecure",
    ),
  ];
};

/**
 * `http.tls` set for a plain http:// target: the profile was written for TLS, but the run made no
 * handshake and encrypted nothing, so it measured a cheaper path than the one configured.
 */
export const tlsUnused: ProfileRule = ({ profile, target, protocol }) => {
  const tls = profile.http.tls;
  const set = [tls.ca && 'ca', tls.cert && 'cert', tls.key && 'key', tls.servername && 'servername', tls.insecure && 'insecure'].filter(Boolean);
  if (protocol.realism.encrypted?.(target) !== false || set.length === 0) return [];
  return [
    flag(
      'tls-unused',
      'warn',
      'TLS configured, plain HTTP sent',
      `${target.text}: http.tls sets ${set.join(', ')}, but the target is http:// — no handshake, nothing encrypted`,
      INCIDENT.twitter2018b,
      'target https://… to load the TLS path the profile describes, or drop http.tls',
    ),
  ];
};

/** Rules that need only the profile (and plan). */
export const PROFILE_RULES: ProfileRule[] = [
  keySkew,
  noHotKey,
  hotKeySmallValues,
  batchTail,
  valueSizes,
  connectionsPerClient,
  clientInstances,
  warmup,
  shortRun,
  singleShard,
  failoverHeadroom,
  retriesAndTimeouts,
  loopback,
  generatorLimitsLoosened,
  errorRateIgnored,
  tlsUnverified,
  tlsUnused,
  fixedValueSize,
  readsOnly,
  noOneHitWonders,
  noTtl,
];
