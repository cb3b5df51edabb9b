import type { DriverReport, GeneratorFigures, TimelineOutcome } from './driver-report.ts';
import { gaugeCatalog, type GaugeCatalog } from './gauges.ts';
import type { Profile } from '../profile/types.ts';
import { clip, segmentMass } from '../schedule/rate-curve.ts';
import type { Plan } from '../schedule/types.ts';
import type { BreakdownResult } from './breakdown.ts';
import { encodeIntoCompressedBase64, summarize, type LatencySummary } from './histograms.ts';
import { digestOf, type IntervalResult, type IntervalsSummary } from './interval-digest.ts';
import type { RunRecorder } from './run-recorder.ts';
import { roundTo } from '../profile/units.ts';

/** 3: `intervals` is a bounded summary; every interval is in intervals.jsonl beside result.json. */
export const RESULT_SCHEMA = 'stampede.result/3';

/**
 * What a run measured, as written to result.json: raw figures only, never a judgement (the SLO
 * verdict and the realism flags are the analysis stage's, in analysis.json), and complete enough to
 * be judged again later — every slice carries its encoded histogram. Apart from `startedAt` and
 * `wall`, a model run's result is a pure function of (profile, seed).
 */
export interface RunResult {
  schema: typeof RESULT_SCHEMA;
  profile: { name: string; description: string; file: string; sha256: string; overrides: string[] };
  seed: number;
  target: string;
  /** Wall-clock start, ISO 8601 UTC. */
  startedAt: string;
  /** Measured window, ms (after the warm-up). */
  durationMs: number;
  warmupMs: number;
  interrupted: boolean;
  /**
   * sent + notSent = ok + failed + inFlightAtEnd; scheduled = sent + notSent + dropped. `sent`: written to a
   * connected socket; `notSent`: failed before reaching the wire (refused while dialing, still waiting
   * for a connection at the end), counted in `failed`; `dropped`: never handed to a connection (the
   * generator's in-flight cap).
   */
  requests: {
    expected: number;
    scheduled: number;
    sent: number;
    notSent: number;
    ok: number;
    failed: number;
    dropped: number;
    inFlightAtEnd: number;
    warmup: number;
  };
  errors: Record<string, number>;
  rate: { askedRps: number; achievedRps: number };
  latencyUs: LatencySummary;
  serviceTimeUs: LatencySummary;
  /** Compressed base64 HDR histograms of the measured window: every completion, and service times. */
  histograms: { latency: string; serviceTime: string };
  byOutcome: { ok: BreakdownResult; failed: BreakdownResult };
  byKind: Record<string, BreakdownResult>;
  byClient: Record<string, BreakdownResult & { instances: number }>;
  /** Bounded however long the run: gauge statistics, a chart series, and where every interval is (intervals.jsonl). */
  intervals: IntervalsSummary;
  /**
   * The asked rate over the run (warm-up included), all clients summed: [ms from run start, req/s]
   * corners of the piecewise-linear plan curve, drawn beside sent and ok. Bounded by the profile's
   * phases and multipliers, never by the run's length. Absent in results written before it existed.
   */
  askedRate?: [number, number][];
  /** How the driver sent (open or closed loop) and what it saw of the target or the model. */
  driver: Pick<DriverReport, 'loop' | 'transport' | 'targetStats' | 'model'>;
  /** Real targets only: the load generator's own figures (absent for the model). */
  generator?: GeneratorFigures;
  /**
   * The timeline as it happened, by planned time: each step of the profile's timeline (planned and
   * actual time, exec's exit code and output tail) and each multiplier's start and end. Absent when
   * the run had none.
   */
  timeline?: TimelineOutcome[];
  /** Every gauge in the intervals, by name: unit, family and what it means. */
  gauges: GaugeCatalog;
  /** Wall-clock facts: the only part that differs between two runs of the same model profile and seed. */
  wall: { finishedAt: string; elapsedMs: number };
  /** One segment of a run split across hosts (`--segment index/count`); `startAt`: the shared clock origin (`--start-at`). */
  segment?: RunSegment;
  /** A run merged from its segments (`stampede merge`): each segment as it ran. */
  merged?: { segments: MergedSegment[] };
  /**
   * The logs beside result.json that are whole (latency.hlog, intervals.jsonl), set as the run folder
   * is written: a log the disk cut short, or removed to make room for result.json, is not named.
   * Absent in results written before it existed.
   */
  files?: string[];
}

export interface RunSegment {
  index: number;
  count: number;
  startAt?: string;
}

/** What a merged result keeps of each segment: where it came from and its own generator's figures (each one counts). */
export interface MergedSegment extends RunSegment {
  dir: string;
  target: string;
  requests: { sent: number; ok: number; failed: number };
  interrupted: boolean;
  generator?: GeneratorFigures;
}

export interface ResultInputs {
  profile: Profile;
  plan: Plan;
  target: string;
  recorder: RunRecorder;
  driver: DriverReport;
  startedAt: string;
  wall: RunResult['wall'];
  segment?: RunSegment | undefined;
}

export function buildResult({ profile, plan, target, recorder, driver, startedAt, wall, segment }: ResultInputs): RunResult {
  const ok = recorder.ok.latency.totalCount;
  const failed = recorder.failed.latency.totalCount;
  // Added up from ok and failed when read: once here.
  const all = recorder.all.latency;
  const durationS = plan.durationUs / 1e6;
  // A segment is asked for its share of the run: 1/count of every request, spread evenly by seq.
  const share = 1 / (segment?.count ?? 1);
  const measuredExpected = (plan.expectedRequests - expectedDuringWarmup(plan)) * share;
  return {
    schema: RESULT_SCHEMA,
    profile: { name: profile.name, description: profile.description, file: profile.source.file, sha256: profile.source.sha256, overrides: profile.source.overrides },
    seed: profile.seed,
    target,
    startedAt,
    durationMs: plan.durationUs / 1000,
    warmupMs: plan.warmupUs / 1000,
    interrupted: driver.interrupted,
    requests: {
      expected: Math.round(measuredExpected),
      scheduled: recorder.sentCount + recorder.notSentCount + recorder.droppedCount,
      sent: recorder.sentCount,
      notSent: recorder.notSentCount,
      ok,
      failed,
      dropped: recorder.droppedCount,
      inFlightAtEnd: recorder.sentCount + recorder.notSentCount - all.totalCount,
      warmup: recorder.warmupSent,
    },
    errors: Object.fromEntries(recorder.reasons.flatMap((name, code) => (code > 0 && recorder.errorCounts[code]! > 0 ? [[name, recorder.errorCounts[code]!]] : []))),
    rate: { askedRps: roundTo(measuredExpected / durationS, 2), achievedRps: roundTo(recorder.sentCount / durationS, 2) },
    latencyUs: summarize(all),
    serviceTimeUs: summarize(recorder.serviceTime),
    histograms: { latency: encodeIntoCompressedBase64(all), serviceTime: encodeIntoCompressedBase64(recorder.serviceTime) },
    byOutcome: { ok: recorder.ok.toJSON(), failed: recorder.failed.toJSON() },
    byKind: Object.fromEntries(plan.kinds.map((kind, i) => [kind, recorder.byKind[i]!.toJSON()])),
    byClient: Object.fromEntries(plan.clients.map((c, i) => [c.name, { ...recorder.byClient[i]!.toJSON(), instances: c.instances }])),
    intervals: recorder.digest.summary(),
    askedRate: askedRateCurve(plan).map(([tMs, rps]): [number, number] => [tMs, roundTo(rps * share, 2)]),
    driver: driverSection(driver),
    ...(driver.generator ? { generator: driver.generator } : {}),
    ...timelineSection(profile, plan, driver),
    gauges: gaugeCatalog(driver.gauges),
    wall,
    ...(segment && { segment }),
  };
}

/** The driver's timeline steps and the schedule's multiplier windows, by planned time. */
function timelineSection(profile: Profile, plan: Plan, driver: DriverReport): { timeline?: TimelineOutcome[] } {
  const endMs = (plan.warmupUs + plan.durationUs) / 1000;
  const ranMs = driver.elapsedUs / 1000;
  const multipliers = profile.multipliers.flatMap((m, i): TimelineOutcome[] => {
    const name = m.label ?? `multiplier ${i + 1}`;
    const who = m.clients ? ` (${m.clients.join(', ')})` : '';
    const edge = (atMs: number, label: string): TimelineOutcome[] =>
      atMs > endMs ? [] : [{ type: 'multiplier', label, plannedMs: atMs, actualMs: atMs <= ranMs ? atMs : null, status: atMs <= ranMs ? 'applied' : 'not reached' }];
    const startMs = (plan.warmupUs + m.at) / 1000;
    return [...edge(startMs, `${name}: rate ×${m.factor}${who}`), ...(m.until === undefined ? [] : edge((plan.warmupUs + m.until) / 1000, `${name} ends${who}`))];
  });
  const all = [...(driver.timeline ?? []), ...multipliers].sort((a, b) => a.plannedMs - b.plannedMs);
  return all.length > 0 ? { timeline: all } : {};
}

function driverSection(report: DriverReport): RunResult['driver'] {
  const { loop, transport, targetStats, model } = report;
  return { loop, ...(transport && { transport }), ...(targetStats !== undefined && { targetStats }), ...(model && { model }) };
}

/** The plan's summed rate curve as corners; a step (a rate that jumps) gives two corners at the same time. */
export function askedRateCurve(plan: Plan): [number, number][] {
  const segments = plan.clients.flatMap((c) => c.segments);
  const times = [...new Set(segments.flatMap((s) => [s.startUs, s.endUs]))].sort((a, b) => a - b);
  const rateAt = (tUs: number, side: 'left' | 'right') =>
    segments.reduce((sum, s) => {
      const inside = side === 'right' ? tUs >= s.startUs && tUs < s.endUs : tUs > s.startUs && tUs <= s.endUs;
      return inside ? sum + s.fromRps + ((s.toRps - s.fromRps) * (tUs - s.startUs)) / (s.endUs - s.startUs) : sum;
    }, 0);
  return times.flatMap((t, i): [number, number][] => {
    const left = roundTo(rateAt(t, 'left'), 2);
    const right = roundTo(rateAt(t, 'right'), 2);
    if (i === 0) return [[t / 1000, right]];
    if (i === times.length - 1 || left === right) return [[t / 1000, left]];
    return [
      [t / 1000, left],
      [t / 1000, right],
    ];
  });
}

/** Requests the plan expects before the measured window starts (sent, but not counted in the totals). */
export function expectedDuringWarmup(plan: Plan): number {
  return plan.clients.reduce((sum, c) => sum + clientExpectedDuringWarmup(c, plan.warmupUs), 0);
}

/** One client's share of the warm-up's expected requests. */
export function clientExpectedDuringWarmup(client: Plan['clients'][number], warmupUs: number): number {
  return clip(client.segments, Number.NEGATIVE_INFINITY, warmupUs).reduce((m, s) => m + segmentMass(s), 0);
}

/**
 * A result.json read back, in the current schema: one of schema 2 held every interval in
 * `intervals[]`; it becomes their summary (the full list stays in that file).
 */
export function upgradeResult(stored: RunResult | (Omit<RunResult, 'schema' | 'intervals'> & { schema: string; intervals: IntervalResult[] })): RunResult {
  const withPeak = withCpuPeak(stored);
  if (!Array.isArray(withPeak.intervals)) return withPeak as RunResult;
  const list = withPeak.intervals;
  const intervalMs = list.length > 1 ? list[1]!.tMs - list[0]!.tMs : 1000;
  return { ...withPeak, schema: RESULT_SCHEMA, intervals: digestOf(list, intervalMs) };
}

/** A result from before `generator.cpuPeak` is judged on the one CPU figure it has, its run-long mean. */
function withCpuPeak<T extends { generator?: GeneratorFigures }>(stored: T): T {
  const g = stored.generator;
  if (g === undefined || typeof g.cpuPeak === 'number') return stored;
  return { ...stored, generator: { ...g, cpuPeak: g.cpu } };
}
