import { DROPPED_INVALID_SHARE } from '../../../analysis/limits.ts';
import type { Profile } from '../../../profile/types.ts';

/**
 * The SLO as k6 thresholds, so `k6 run` exits non-zero where `stampede run` says FAIL: each latency
 * check a percentile of http_req_duration (scoped by the kind and client tags the script sets),
 * the error rate http_req_failed, and dropped iterations — k6's dropped sends — within the share
 * past which stampede calls a run INVALID. With a warm-up, only requests tagged window:measured count.
 */
export function thresholdsOf(profile: Profile, expectedRequests: number): Record<string, string[]> {
  const thresholds: Record<string, string[]> = {};
  const add = (metric: string, expression: string) => (thresholds[metric] ??= []).push(expression);
  const window = profile.warmup > 0 ? ['window:measured'] : [];
  for (const check of profile.slo.latency) {
    const scope = [...(check.kind === undefined ? [] : [`kind:${check.kind}`]), ...(check.client === undefined ? [] : [`client:${check.client}`]), ...window];
    add(scoped('http_req_duration', scope), `p(${check.percentile})<${check.max / 1000}`);
  }
  if (profile.slo.errorRate !== undefined) add(scoped('http_req_failed', window), `rate<=${profile.slo.errorRate}`);
  add('dropped_iterations', `count<=${Math.floor(expectedRequests * DROPPED_INVALID_SHARE)}`);
  return thresholds;
}

/** The percentiles the end-of-test summary shows: k6's usual ones and every one the SLO names. */
export function trendStatsOf(profile: Profile): string[] {
  const quoted = profile.slo.latency.map((l) => `p(${l.percentile})`);
  return [...new Set(['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', ...quoted])];
}

function scoped(metric: string, tags: string[]): string {
  return tags.length === 0 ? metric : `${metric}{${tags.join(',')}}`;
}
