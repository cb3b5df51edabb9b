import { formatCount, formatUs } from '../../../analysis/format.ts';
import { MIN_STEADY_RUN_US, MIN_TAIL_SAMPLES, SINGLE_GENERATOR_RPS, STABLE_TAIL_SAMPLES } from '../../../analysis/limits.ts';
import { INCIDENT } from '../../../analysis/realism/incidents.ts';
import { flag } from '../../../analysis/realism/flag.ts';
import type { RealismFlag } from '../../../analysis/realism/types.ts';
import { parseK6Duration } from '../duration.ts';
import { CLOSED_LOOP_EXECUTORS, expectedIterations, type K6Options, type K6Scenario, peakArrivalRate, record, testLengthUs } from '../k6-options.ts';

/*
 * The realism flags a k6 script's options can show. Where stampede raises the same flag for a
 * profile, the id, severity, title and incident are the profile's (test/interop/k6/lint.test.ts
 * holds them equal); the evidence and the fix speak k6.
 */

export interface K6LintInput {
  options: K6Options;
  scenarios: K6Scenario[];
}

export type K6Rule = (input: K6LintInput) => RealismFlag[];

export const closedLoop: K6Rule = ({ scenarios }) => {
  const closed = scenarios.filter((s) => CLOSED_LOOP_EXECUTORS.includes(s.executor));
  if (closed.length === 0) return [];
  const named = closed.map((s) => (s.shortcut ? `${s.shortcut} (k6 runs ${s.executor})` : `scenario ${s.name}: ${s.executor}`)).join('; ');
  return [
    flag(
      'coordinated-omission',
      'invalid',
      'closed-loop load',
      `${named}: each VU waits for its response before its next iteration, so a stalled target is sent less and its stall is never measured`,
      INCIDENT.coordinatedOmission,
      'use constant-arrival-rate or ramping-arrival-rate (an open model) with maxVUs for a stall, or `stampede export k6` a profile',
    ),
  ];
};

export const noWarmup: K6Rule = ({ options, scenarios }) => {
  const measuredOnly = Object.keys(record(options.thresholds) ?? {}).some((metric) => /\{[^}]*window:measured/.test(metric));
  if (measuredOnly || scenarios.some(startsWithRamp)) return [];
  return [
    flag(
      'no-warmup',
      'warn',
      'no warm-up',
      'every scenario starts at full load and every request counts: pools and connections are measured while they open',
      INCIDENT.twitter2013,
      "begin with a ramp stage (e.g. { target: <rate>, duration: '10s' }), or tag requests after the warm-up window:measured and scope the thresholds to {window:measured}",
    ),
  ];
};

/** A ramping executor whose first stage climbs over some time from where it starts (k6: startRate 0, startVUs 1). */
function startsWithRamp(s: K6Scenario): boolean {
  const first = record(Array.isArray(s.config.stages) ? s.config.stages[0] : undefined);
  if (!first || !((parseK6Duration(first.duration) ?? 0) > 0)) return false;
  if (s.executor === 'ramping-arrival-rate') return Number(first.target) > Number(s.config.startRate ?? 0);
  if (s.executor === 'ramping-vus') return Number(first.target) > Number(s.config.startVUs ?? 1);
  return false;
}

export const thresholds: K6Rule = ({ options }) => {
  const metrics = Object.keys(record(options.thresholds) ?? {});
  const flags: RealismFlag[] = [];
  if (metrics.length === 0)
    flags.push(
      flag(
        'no-thresholds',
        'warn',
        'no thresholds',
        'options.thresholds is empty: k6 exits 0 whatever the latency and the errors',
        INCIDENT.twitter2018b,
        "state the SLO as thresholds, e.g. http_req_duration: ['p(99)<250']",
      ),
    );
  if (!metrics.some((m) => /^(http_req_failed|checks)(\{|$)/.test(m)))
    flags.push(
      flag(
        'error-rate-ignored',
        'warn',
        'error rate ignored',
        'no threshold on http_req_failed (or checks)',
        INCIDENT.twitter2013,
        "add http_req_failed: ['rate<0.001'] to the thresholds",
      ),
    );
  return flags;
};

export const oneClientShape: K6Rule = ({ scenarios }) => {
  if (scenarios.length !== 1) return [];
  return [
    flag(
      'one-client-shape',
      'info',
      'one client shape',
      `one scenario (${scenarios[0]!.name}) sends all the traffic: one rate curve, one request shape`,
      INCIDENT.bluesky,
      'add a scenario per caller group with its own rate and requests (e.g. a caller at 1 req/s with 20k-key batches)',
    ),
  ];
};

export const singleGenerator: K6Rule = ({ options, scenarios }) => {
  if (options.executionSegment !== undefined) return [];
  const zones = loadZones(options);
  const peak = peakArrivalRate(scenarios);
  const reasons = [
    ...(zones > 1 ? [`the options spread the load over ${zones} load zones, yet \`k6 run\` sends it all from one host`] : []),
    ...(peak > SINGLE_GENERATOR_RPS ? [`peak arrival rate ${formatCount(peak)}/s from one k6 instance (> ${formatCount(SINGLE_GENERATOR_RPS)}/s)`] : []),
  ];
  if (reasons.length === 0) return [];
  return [
    flag(
      'client-instances',
      'warn',
      'one generator stands in for every client',
      reasons.join('; '),
      INCIDENT.twitter2014a,
      'split the run: `k6 run --execution-segment` on several hosts, or the k6-operator with parallelism',
    ),
  ];
};

/** Load zones named by k6 Cloud's distribution option (options.cloud or the older options.ext.loadimpact). */
function loadZones(options: K6Options): number {
  const cloud = record(options.cloud)?.distribution ?? record(record(options.ext)?.loadimpact)?.distribution;
  const zones = Object.values(record(cloud) ?? {}).map((z) => record(z)?.loadZone);
  return new Set(zones.filter((z) => z !== undefined)).size;
}

export const shortRun: K6Rule = ({ scenarios }) => {
  const us = testLengthUs(scenarios);
  if (us === undefined || us >= MIN_STEADY_RUN_US) return [];
  return [
    flag(
      'short-run',
      'warn',
      'run too short for steady state',
      `runs for ${formatUs(us)} (< ${formatUs(MIN_STEADY_RUN_US)})`,
      INCIDENT.twitter2018b,
      'measure at least 20–60 s per rate after a warm-up',
    ),
  ];
};

/**
 * A percentile threshold on every request (http_req_duration unscoped, or scoped to the measured
 * window) judged from too few requests beyond it: one iteration is taken as one request, so only
 * arrival-rate scenarios, whose iteration count is known before the run, are judged.
 */
export const tooFewSamples: K6Rule = ({ options, scenarios }) => {
  const n = expectedIterations(scenarios);
  if (n === undefined) return [];
  const judged = Object.entries(record(options.thresholds) ?? {}).filter(([metric]) => /^http_req_duration(\{window:measured\})?$/.test(metric));
  const percentiles = judged.flatMap(([, rules]) => (Array.isArray(rules) ? rules : [rules]).flatMap((r) => percentileOf(r)));
  return [...new Set(percentiles)].flatMap((q) => {
    const tail = n * (1 - q / 100);
    if (tail >= STABLE_TAIL_SAMPLES) return [];
    const needed = Math.ceil(STABLE_TAIL_SAMPLES / (1 - q / 100));
    return [
      flag(
        'too-few-samples',
        tail < MIN_TAIL_SAMPLES ? 'invalid' : 'warn',
        `too few samples for p${q}`,
        `p${q} from ${formatCount(n)} expected requests: ${formatCount(tail)} beyond it`,
        INCIDENT.twitter2018b,
        `run longer or faster: p${q} needs ≥ ${formatCount(needed)} requests`,
      ),
    ];
  });
};

/** The percentile of a threshold expression like 'p(99.9)<250' (or { threshold: … }). */
function percentileOf(rule: unknown): number[] {
  const text = typeof rule === 'string' ? rule : String(record(rule)?.threshold ?? '');
  const match = /^\s*p\((\d+(?:\.\d+)?)\)/.exec(text);
  return match ? [Number(match[1])] : [];
}

export const K6_RULES: K6Rule[] = [closedLoop, tooFewSamples, noWarmup, shortRun, thresholds, oneClientShape, singleGenerator];
