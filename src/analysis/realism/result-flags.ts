import { formatUs } from '../format.ts';
import { parseGaugeKey, specOf } from '../../recorder/gauges.ts';
import type { RunResult } from '../../recorder/result.ts';
import { judgeGenerator } from '../generator.ts';
import { connectionPool, judgeTargetSaturation } from '../saturation.ts';
import { formatCount, formatShare } from '../format.ts';
import { ACHIEVED_FRACTION, DROPPED_INVALID_SHARE, FAST_ERRORS, HIT_RATIO_TOLERANCE, MIN_TAIL_SAMPLES, STABLE_TAIL_SAMPLES, SUSPICIOUS_HIT_RATIO } from '../limits.ts';
import { INCIDENT } from './incidents.ts';
import { flag } from './flag.ts';
import type { FlagRule, RealismFlag } from './types.ts';

/*
 * Flags read from what a run measured (result.json): the generator's health, the latency split
 * between service time and lateness, sample counts, the model's gauges.
 */

export const coordinatedOmission: FlagRule = ({ result }) => {
  if (!result) return [];
  if (result.driver.loop === 'closed') {
    return [
      flag(
        'coordinated-omission',
        'invalid',
        'closed-loop load',
        'the driver waited for each response before sending the next request',
        INCIDENT.coordinatedOmission,
        'run open loop (the default): every request at its intended time',
      ),
    ];
  }
  const g = result.generator;
  if (!g) return [];
  const latency = result.latencyUs.p99;
  const service = result.serviceTimeUs.p99;
  const late = g.sendLatenessUs.p99;
  const significant = late > Math.max(1000, 0.1 * latency);
  if (!significant) return [];
  // Latency from the intended send time is lateness + service time for every request, so the means
  // add up; percentiles do not (the late requests need not be the slow ones), so they are only a
  // fallback when the driver gives no mean lateness.
  const lateMean = g.sendLatenessUs.mean;
  const lost = lateMean !== undefined ? result.latencyUs.mean - result.serviceTimeUs.mean < 0.5 * lateMean : service >= 0.95 * latency && latency > 0;
  if (lost) {
    return [
      flag(
        'coordinated-omission',
        'invalid',
        'a stall the generator waited out',
        `requests left up to ${formatUs(late)} late (p99) yet latency p99 ${formatUs(latency)} ≈ service time p99 ${formatUs(service)}: lateness is missing from latency`,
        INCIDENT.coordinatedOmission,
        'measure latency from the intended send time (the recorder does; a custom driver must pass intendedAtUs)',
      ),
    ];
  }
  // Late sends are the generator's only when its pacer slipped; sends that waited for a connection the
  // target held (or closed) are the target's saturation, which analysis.saturation reports.
  const slipped = g.dispatchLatenessUs.p99;
  if (slipped <= Math.max(1000, 0.1 * latency)) return [];
  return [
    flag(
      'coordinated-omission',
      'warn',
      'the generator fell behind its schedule',
      `dispatch lateness p99 ${formatUs(slipped)}, send lateness p99 ${formatUs(late)} (latency p99 ${formatUs(latency)}; counted from the intended time)`,
      INCIDENT.coordinatedOmission,
      'the latency is corrected, but the target saw the load late: add generator capacity (--workers, hosts)',
    ),
  ];
};

export const generatorBottleneck: FlagRule = ({ profile, result }) => {
  if (!result) return [];
  const reasons: string[] = [];
  let severity: RealismFlag['severity'] = 'warn';
  const judged = result.generator ? judgeGenerator(result.generator, profile.generator) : undefined;
  if (judged?.saturated) {
    severity = 'invalid';
    reasons.push(...judged.reasons);
  }
  if (fellShort(result)) {
    severity = 'invalid';
    reasons.push(`achieved ${formatCount(result.rate.achievedRps)} of ${formatCount(result.rate.askedRps)} rps asked`);
  }
  const dropped = result.requests.dropped;
  if (dropped > 0) {
    const share = dropped / Math.max(1, result.requests.scheduled);
    if (share > DROPPED_INVALID_SHARE) severity = 'invalid';
    reasons.push(`${formatCount(dropped)} sends dropped (${formatShare(share)})`);
  }
  if (reasons.length === 0) return [];
  return [
    flag(
      'generator-bottleneck',
      severity,
      'the load generator was the limit',
      reasons.join('; '),
      INCIDENT.openlinker,
      'add generator capacity (more workers or hosts, raise inFlightCap) until achieved = asked and nothing is dropped',
    ),
  ];
};

export const tooFewSamples: FlagRule = ({ profile, plan, result }) => {
  const slices = profile.slo.latency.map((rule) => ({ rule, n: sliceCount(rule, result, plan) }));
  const flags = slices.flatMap(({ rule, n }) => {
    if (n === undefined) return [];
    const tail = n * (1 - rule.percentile / 100);
    if (tail >= STABLE_TAIL_SAMPLES) return [];
    const severity = tail < MIN_TAIL_SAMPLES ? 'invalid' : 'warn';
    const scope = rule.kind ? ` (kind ${rule.kind})` : rule.client ? ` (client ${rule.client})` : '';
    const needed = Math.ceil(STABLE_TAIL_SAMPLES / (1 - rule.percentile / 100));
    const counted = result ? 'requests' : 'expected requests';
    return [
      {
        ...flag(
          'too-few-samples',
          severity,
          `too few samples for p${rule.percentile}`,
          `p${rule.percentile}${scope} from ${formatCount(n)} ${counted}: ${formatCount(tail)} beyond it`,
          INCIDENT.twitter2018b,
          `run longer or faster: p${rule.percentile} needs ≥ ${formatCount(needed)} requests`,
        ),
        scope: `p${rule.percentile}${scope}`,
      },
    ];
  });
  return flags;
};

export const hitRatio: FlagRule = ({ profile, result }) => {
  if (!result) return [];
  const isHitRatio = (key: string) => {
    const spec = specOf(result.gauges, key);
    return spec?.family === 'hit-ratio' && spec.unit === 'ratio';
  };
  const prod = profile.production?.hitRatio;
  // The mean over the measured intervals, kept exactly by the recorder's digest however long the run.
  const means = Object.entries(result.intervals.gauges).flatMap(([name, stats]) =>
    isHitRatio(name) && stats.measuredMean !== undefined ? [[name, stats.measuredMean] as const] : [],
  );
  return means.flatMap(([name, mean]) => {
    const cache = parseGaugeKey(name).instance ?? name;
    return hitRatioFlags(cache, mean, prod).map((f) => ({ ...f, scope: cache }));
  });
};

/** One cache's hit ratio against production's, or against a suspiciously perfect one when production's is not stated. */
function hitRatioFlags(cache: string, mean: number, prod: number | undefined): RealismFlag[] {
  if (prod !== undefined) {
    if (Math.abs(mean - prod) <= HIT_RATIO_TOLERANCE) return [];
    const direction = mean > prod ? 'above' : 'below';
    return [
      flag(
        'hit-ratio',
        'warn',
        `cache hit ratio ${direction} production's`,
        `${cache}: ${formatShare(mean)} in the test vs ${formatShare(prod)} in production`,
        INCIDENT.twitter2016b,
        mean > prod
          ? 'widen the keyspace or shrink the cache (capacity) so misses reach the database as in production'
          : 'warm the cache (warm: true or a warm-up) or raise its capacity',
      ),
    ];
  }
  if (mean < SUSPICIOUS_HIT_RATIO) return [];
  return [
    flag(
      'hit-ratio',
      'info',
      'near-perfect cache hit ratio',
      `${cache}: ${formatShare(mean)} over the measured intervals`,
      INCIDENT.twitter2016b,
      'state production.hitRatio; a pre-warmed cache hides the database load of misses',
    ),
  ];
}

/**
 * The target broke its protocol: a response nobody asked for, a second answer, bytes before a
 * request, a frame that does not parse. The connection was closed and its requests failed, but an
 * extra answer fails none — so a PASS could rest on a target that is not speaking the protocol.
 */
export const protocolErrors: FlagRule = ({ result }) => {
  const transport = result?.driver.transport;
  if (!transport || transport.protocolErrors === 0) return [];
  const count = result.errors['protocol_error'] ?? 0;
  return [
    flag(
      'protocol-errors',
      'invalid',
      'the target broke its protocol',
      `${formatCount(transport.protocolErrors)} connection(s) closed on a protocol error (${formatCount(count)} request(s) failed with protocol_error): unsolicited, extra or malformed ${transport.protocol} responses`,
      INCIDENT.twitter2018b,
      'fix the target (or the proxy in front of it) until it answers each request exactly once; until then no latency it shows can be trusted',
    ),
  ];
};

export const fastErrors: FlagRule = ({ result }) => {
  if (!result) return [];
  const ok = result.byOutcome.ok;
  const failed = result.byOutcome.failed;
  const completed = ok.requests + failed.requests;
  if (failed.requests === 0 || completed === 0 || ok.requests === 0) return [];
  if (failed.requests / completed < FAST_ERRORS.share) return [];
  if (failed.latencyUs.p50 * FAST_ERRORS.speedup > ok.latencyUs.p50) return [];
  return [
    flag(
      'fast-errors',
      'warn',
      'errors faster than successes pull percentiles down',
      `${formatShare(failed.requests / completed)} failed with median ${formatUs(failed.latencyUs.p50)} vs ${formatUs(ok.latencyUs.p50)} for successes`,
      INCIDENT.twitter2013,
      'judge the error rate (slo.errorRate) and read the ok-only percentiles: a fast failure is not a fast answer',
    ),
  ];
};

/**
 * The generator sent well under the asked rate: below ACHIEVED_FRACTION of it and by more than
 * Poisson noise could explain (4 standard deviations of the expected count), so a short step at a
 * low rate is not mistaken for a saturated generator. A request the target refused before it
 * reached the wire (notSent) was issued on time: the target's failure, not the generator's.
 */
export function fellShort(result: RunResult): boolean {
  const expected = result.requests.expected;
  if (result.interrupted || expected <= 0) return false;
  const issued = result.requests.sent + (result.requests.notSent ?? 0);
  return issued < ACHIEVED_FRACTION * expected && expected - issued > 4 * Math.sqrt(expected);
}

/**
 * The target saturated at the test's concurrency while production calls it through a larger pool:
 * the wait was the test's, and production would put more concurrency on the target. A realism
 * question, never a generator verdict; raised only when production's figures are declared.
 */
export const poolSmallerThanProduction: FlagRule = ({ profile, result }) => {
  const perClient = profile.production?.connectionsPerClient;
  const clients = profile.production?.clientInstances;
  if (!result || perClient === undefined || clients === undefined) return [];
  const judged = result.generator ? judgeGenerator(result.generator, profile.generator) : undefined;
  const saturation = judged?.saturated === false ? judgeTargetSaturation(result, profile.generator) : undefined;
  const test = connectionPool(result.driver.transport)?.connections;
  const production = perClient * clients;
  if (!saturation || test === undefined || test >= production) return [];
  return [
    flag(
      'pool-smaller-than-production',
      'warn',
      "the test's connection pool is smaller than production's",
      `${formatCount(test)} connection(s) all busy (${formatCount(saturation.waitedForConnection)} requests waited) vs ${perClient} per client × ${formatCount(clients)} client instances = ${formatCount(production)} in production`,
      INCIDENT.twitter2018b,
      "raise http.connections (or --workers, hosts) toward production's pool, or state in production: why the target's concurrency is capped at the test's",
    ),
  ];
};

export const RESULT_RULES: FlagRule[] = [protocolErrors, coordinatedOmission, generatorBottleneck, poolSmallerThanProduction, tooFewSamples, hitRatio, fastErrors];

function sliceCount(
  rule: { kind?: string | undefined; client?: string | undefined },
  result: RunResult | undefined,
  plan: { expectedRequests: number; warmupUs: number; totalUs: number; kinds: string[]; kindShares: number[]; clients: { name: string; expectedRequests: number }[] } | undefined,
): number | undefined {
  if (result) {
    if (rule.kind !== undefined && rule.client === undefined) return result.byKind[rule.kind]?.requests ?? 0;
    if (rule.client !== undefined && rule.kind === undefined) return result.byClient[rule.client]?.requests ?? 0;
    if (rule.kind === undefined) return result.requests.ok + result.requests.failed;
    return undefined;
  }
  if (!plan) return undefined;
  // Expected requests include the warm-up: scale to the measured window (exact for a steady rate).
  const measured = plan.totalUs > 0 ? (plan.totalUs - plan.warmupUs) / plan.totalUs : 1;
  if (rule.kind !== undefined && rule.client === undefined) return plan.expectedRequests * measured * (plan.kindShares[plan.kinds.indexOf(rule.kind)] ?? 0);
  if (rule.client !== undefined && rule.kind === undefined) return (plan.clients.find((c) => c.name === rule.client)?.expectedRequests ?? 0) * measured;
  if (rule.kind === undefined) return plan.expectedRequests * measured;
  return undefined;
}
