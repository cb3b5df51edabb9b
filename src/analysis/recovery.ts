import type { Profile } from '../profile/types.ts';
import type { IntervalResult } from '../recorder/interval-digest.ts';
import type { RunResult } from '../recorder/result.ts';
import { RECOVERY_BASELINE_P99_FACTOR, RECOVERY_DEFAULT_ERROR_RATE, RECOVERY_HIT_RATIO_POINTS, RECOVERY_HOLD_POINTS } from './limits.ts';

/*
 * Time to recover: for each timeline event the run applied, how long until the per-interval p99,
 * error rate and hit ratio were back inside their limits and stayed there. It reads the result's
 * interval series (the intervals themselves, or neighbours merged on a long run: the resolution is
 * the series' span), so a stored or merged run gets the same answer as the run that just ended.
 */

/** What "inside" means for one interval, and where each limit came from. */
export interface RecoveryCriteria {
  /** Per-interval p99 at or below this, µs; absent when neither the SLO nor the run before the first event gives one. */
  p99MaxUs?: number;
  p99From?: 'slo' | 'baseline';
  errorRateMax: number;
  errorRateFrom: 'slo' | 'default';
  /** Per hit-ratio gauge: at or above this (its mean before the first event less RECOVERY_HIT_RATIO_POINTS). */
  hitRatioMin: Record<string, number>;
  /** Consecutive series points that must be inside for a recovery to count. */
  holdPoints: number;
  /** Time each series point covers, ms. */
  spanMs: number;
}

export interface EventRecovery {
  label: string;
  type: string;
  /** When it was applied, ms from the run's start. */
  atMs: number;
  /** ms from the event until every measure was back inside and stayed there; null: did not recover within the run. */
  recoveryMs: number | null;
  /** The measures that were outside at some point after the event (until it recovered). */
  breached: string[];
}

/** One part of the run: before the first event, during the disturbance, after every event recovered. */
export interface RunPart {
  fromMs: number;
  toMs: number;
  sent: number;
  failed: number;
  errorRate: number;
  /** Worst per-interval p99 in the part, µs (0 without completions). */
  worstP99Us: number;
  /** Mean per-interval hit ratio per gauge. */
  hitRatio: Record<string, number>;
}

export interface TimelineAnalysis {
  criteria: RecoveryCriteria;
  events: EventRecovery[];
  parts: { before?: RunPart; during?: RunPart; after?: RunPart };
}

/** The timeline's recovery figures, or undefined when the run applied no event inside its sending window. */
export function analyseRecovery(result: RunResult, profile: Profile): TimelineAnalysis | undefined {
  const sendingEndMs = result.warmupMs + result.durationMs;
  const applied = (result.timeline ?? []).filter((e) => e.actualMs !== null && e.actualMs < sendingEndMs);
  if (applied.length === 0) return undefined;
  const { series, spanMs } = result.intervals;
  const points = series.filter((p) => p.tMs < sendingEndMs);
  const firstMs = Math.min(...applied.map((e) => e.actualMs!));
  const before = points.filter((p) => !p.warmup && p.tMs + spanMs <= firstMs);
  const criteria = criteriaOf(profile, before, points, spanMs);
  const events = applied.map((e) => recoveryOf(e.label, e.type, e.actualMs!, points, criteria));
  const recoveredAt = events.map((e) => (e.recoveryMs === null ? sendingEndMs : e.atMs + e.recoveryMs));
  const duringEndMs = Math.max(firstMs, ...recoveredAt);
  const measured = points.filter((p) => !p.warmup);
  return {
    criteria,
    events,
    parts: {
      ...partOf('before', measured, Number.NEGATIVE_INFINITY, firstMs, spanMs),
      ...partOf('during', points, firstMs, duringEndMs, spanMs),
      ...partOf('after', measured, duringEndMs, sendingEndMs, spanMs),
    },
  };
}

function criteriaOf(profile: Profile, before: readonly IntervalResult[], points: readonly IntervalResult[], spanMs: number): RecoveryCriteria {
  const sloP99 = profile.slo.latency.find((c) => c.percentile === 99 && c.kind === undefined && c.client === undefined);
  const baselineP99 = median(before.filter((p) => p.ok + p.failed > 0).map((p) => p.latencyUs.p99));
  const hitRatioMin: Record<string, number> = {};
  for (const key of hitRatioKeys(points)) {
    const values = before.flatMap((p) => (p.gauges[key] === undefined ? [] : [p.gauges[key]]));
    if (values.length > 0) hitRatioMin[key] = Math.max(0, mean(values) - RECOVERY_HIT_RATIO_POINTS);
  }
  return {
    ...(sloP99
      ? { p99MaxUs: sloP99.max, p99From: 'slo' as const }
      : baselineP99 !== undefined
        ? { p99MaxUs: baselineP99 * RECOVERY_BASELINE_P99_FACTOR, p99From: 'baseline' as const }
        : {}),
    errorRateMax: profile.slo.errorRate ?? RECOVERY_DEFAULT_ERROR_RATE,
    errorRateFrom: profile.slo.errorRate === undefined ? 'default' : 'slo',
    hitRatioMin,
    holdPoints: RECOVERY_HOLD_POINTS,
    spanMs,
  };
}

function hitRatioKeys(points: readonly IntervalResult[]): string[] {
  const keys = new Set<string>();
  for (const p of points) for (const key of Object.keys(p.gauges)) if (key.split('.')[0] === 'hitRatio') keys.add(key);
  return [...keys].sort();
}

/** The measures of one point that are outside the criteria (empty: inside). */
export function outside(p: IntervalResult, c: RecoveryCriteria): string[] {
  const out: string[] = [];
  const completed = p.ok + p.failed;
  if (c.p99MaxUs !== undefined && completed > 0 && p.latencyUs.p99 > c.p99MaxUs) out.push('p99');
  if (errorRateOf(p) > c.errorRateMax) out.push('error rate');
  for (const [key, min] of Object.entries(c.hitRatioMin)) if ((p.gauges[key] ?? min) < min) out.push(key);
  return out;
}

function errorRateOf(p: IntervalResult): number {
  const all = p.ok + p.failed + p.dropped;
  return all > 0 ? (p.failed + p.dropped) / all : 0;
}

/**
 * From the point holding the event on, the first run of `holdPoints` points all inside: the event
 * recovered at that run's start (at the event itself when the run starts with the point holding
 * it). No such run before the end: it did not recover within the run.
 */
function recoveryOf(label: string, type: string, atMs: number, points: readonly IntervalResult[], c: RecoveryCriteria): EventRecovery {
  const after = points.filter((p) => p.tMs + c.spanMs > atMs);
  const breached = new Set<string>();
  for (let j = 0; j + c.holdPoints <= after.length; j++) {
    const held = after.slice(j, j + c.holdPoints).every((p) => outside(p, c).length === 0);
    if (held) return { label, type, atMs, recoveryMs: Math.max(0, after[j]!.tMs - atMs), breached: [...breached] };
    for (const m of outside(after[j]!, c)) breached.add(m);
  }
  for (const p of after) for (const m of outside(p, c)) breached.add(m);
  return { label, type, atMs, recoveryMs: null, breached: [...breached] };
}

function partOf(name: 'before' | 'during' | 'after', points: readonly IntervalResult[], fromMs: number, toMs: number, spanMs: number): Partial<Record<typeof name, RunPart>> {
  const inside = points.filter((p) => p.tMs >= fromMs - spanMs / 2 && p.tMs < toMs - spanMs / 2);
  if (inside.length === 0 || toMs <= fromMs) return {};
  const sent = inside.reduce((n, p) => n + p.sent, 0);
  const failed = inside.reduce((n, p) => n + p.failed + p.dropped, 0);
  const done = inside.reduce((n, p) => n + p.ok + p.failed + p.dropped, 0);
  const hitRatio: Record<string, number> = {};
  for (const key of hitRatioKeys(inside)) hitRatio[key] = mean(inside.flatMap((p) => (p.gauges[key] === undefined ? [] : [p.gauges[key]])));
  return {
    [name]: {
      fromMs: Math.max(fromMs, inside[0]!.tMs),
      toMs,
      sent,
      failed,
      errorRate: done > 0 ? failed / done : 0,
      worstP99Us: Math.max(0, ...inside.filter((p) => p.ok + p.failed > 0).map((p) => p.latencyUs.p99)),
      hitRatio,
    },
  };
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
