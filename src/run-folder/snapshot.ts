import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Snapshot } from '../analysis/compare.ts';
import { notComparableReasons } from '../analysis/comparable.ts';
import { bracket, countedSteps } from '../analysis/capacity.ts';
import { errorRateAtRate, latencyAtRate, type RatePoint } from '../analysis/latency-at-rate.ts';
import { intervalNoise, widerNoise } from '../analysis/noise.ts';
import type { StepOutcome } from '../analysis/qualification.ts';
import { analyseRun, type RunAnalysis } from '../analysis/analyse-run.ts';
import { decodeFromCompressedBase64, type Histogram } from '../recorder/histograms.ts';
import type { RunResult } from '../recorder/result.ts';
import { isRunFolder, QUALIFICATION_FILE, readQualification, readRunFolder, type StoredRun } from './index.ts';
import { type SkippedFolder, walkFolders } from './walk.ts';

export function isRunDir(dir: string): boolean {
  return isRunFolder(dir) || existsSync(join(dir, QUALIFICATION_FILE));
}

/** Reads a run folder (result.json, latency.hlog) or a qualification folder (qualification.json and its steps). */
export function loadSnapshot(dir: string): Snapshot {
  if (existsSync(join(dir, QUALIFICATION_FILE))) return qualificationSnapshot(dir);
  const stored = readRunFolder(dir);
  const result = stored.result;
  const analysis = judgementOf(stored);
  const verdict = analysis?.verdict ?? 'unknown';
  const figures = runFigures(result);
  return {
    latency: figures.latency,
    requests: figures.requests,
    noise: figures.noise,
    p99Us: result.latencyUs.p99,
    errorRate: figures.requests.total > 0 ? figures.requests.failed / figures.requests.total : 0,
    offeredRps: result.rate.askedRps,
    ...recoveryOf(stored, analysis),
    dir,
    label: basename(dir),
    startedAt: result.startedAt,
    profileName: result.profile.name,
    verdict,
    kind: 'run',
    interrupted: result.interrupted,
    notComparable: notComparableReasons({ verdict, interrupted: result.interrupted, flags: analysis?.flags ?? [] }),
  };
}

function qualificationSnapshot(dir: string): Snapshot {
  const q = readQualification(dir);
  const curve = rateCurve(dir, q.steps);
  const { pass, fail } = bracket(q.steps);
  // Files from before `interrupted` existed: a step cut short still tells.
  const interrupted = q.interrupted === true || q.steps.some((s) => s.interrupted);
  const atPeak = latencyAtRate(curve, q.expectedPeakRps, 99);
  return {
    requests: { failed: curve.reduce((n, p) => n + p.requests.failed, 0), total: curve.reduce((n, p) => n + p.requests.total, 0) },
    ...(atPeak && { p99Us: atPeak.estimate.valueUs, p99AtRps: q.expectedPeakRps, errorRate: errorRateAtRate(curve, q.expectedPeakRps) }),
    dir,
    label: basename(dir),
    startedAt: q.startedAt,
    profileName: q.profile.name,
    verdict: q.verdict,
    kind: 'qualification',
    interrupted,
    notComparable: notComparableReasons({ verdict: q.verdict, interrupted, flags: q.flags, interruption: q.reasons.find((r) => r.startsWith('interrupted')) }),
    capacity: { pass, fail, series: q.spread?.series, failoverPass: q.failover?.pass },
    capacityRps: pass,
    curve,
    expectedPeakRps: q.expectedPeakRps,
  };
}

/**
 * The qualification's latency per offered rate: its counted steps (complete, not set aside), less
 * those the generator limited (their latency is the generator's), repeats of a rate merged.
 */
function rateCurve(dir: string, steps: readonly StepOutcome[]): RatePoint[] {
  const byRate = new Map<number, RatePoint>();
  for (const step of countedSteps(steps)) {
    if (step.generatorLimited || !existsSync(join(dir, step.dir, 'result.json'))) continue;
    const figures = runFigures(readRunFolder(join(dir, step.dir)).result);
    const repeat = { p50: step.latencyUs.p50, p99: step.latencyUs.p99, p999: step.latencyUs.p999 };
    const point = byRate.get(step.askedRps);
    if (!point) {
      byRate.set(step.askedRps, { rps: step.askedRps, ...figures, repeats: [repeat] });
      continue;
    }
    point.latency.add(figures.latency);
    point.requests = { failed: point.requests.failed + figures.requests.failed, total: point.requests.total + figures.requests.total };
    point.noise = {
      p50: widerNoise(point.noise.p50, figures.noise.p50),
      p99: widerNoise(point.noise.p99, figures.noise.p99),
      errorRate: widerNoise(point.noise.errorRate, figures.noise.errorRate),
    };
    point.repeats.push(repeat);
  }
  return [...byRate.values()].sort((a, b) => a.rps - b.rps);
}

function runFigures(result: RunResult): Pick<RatePoint, 'latency' | 'requests' | 'noise'> {
  const total = result.requests.ok + result.requests.failed + result.requests.dropped;
  const latency = decodeFromCompressedBase64(result.histograms.latency) as Histogram;
  return {
    latency,
    requests: { failed: result.requests.failed + result.requests.dropped, total },
    noise: intervalNoise(result.intervals.series, result.warmupMs + result.durationMs),
  };
}

/** The time to recover from each timeline event, as stored, or judged now for a folder analysed before it existed. */
function recoveryOf(stored: StoredRun, analysis: RunAnalysis | undefined): Pick<Snapshot, 'recovery'> {
  if (!stored.result.timeline) return {};
  const timeline = analysis?.timeline ?? (stored.profile ? analyseRun(stored.result, stored.profile).timeline : undefined);
  return timeline ? { recovery: { spanMs: timeline.criteria.spanMs, events: timeline.events.map((e) => ({ label: e.label, type: e.type, recoveryMs: e.recoveryMs })) } } : {};
}

/** The stored judgement; a folder without analysis.json is judged now from its result and profile. */
function judgementOf(stored: StoredRun): RunAnalysis | undefined {
  if (stored.analysis) return stored.analysis;
  return stored.profile ? analyseRun(stored.result, stored.profile) : undefined;
}

/**
 * Every run or qualification folder under `root` (any depth), oldest first by start time, and the folders it
 * could not walk into: a symbolic link that leads back into the walk is skipped (once is enough;
 * followed, it would repeat for ever until ELOOP), as is one that leads nowhere.
 */
export function findSnapshotDirs(root: string): { dirs: string[]; skipped: SkippedFolder[] } {
  const dirs: string[] = [];
  // A qualification's steps are part of it, not nights of their own.
  const skipped = walkFolders(root, (dir) => (isRunDir(dir) ? (dirs.push(dir), 'stop') : 'descend'));
  return { dirs, skipped };
}
