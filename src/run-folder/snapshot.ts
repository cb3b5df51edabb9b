import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Snapshot } from '../analysis/compare.ts';
import { bracket, completeSteps } from '../analysis/capacity.ts';
import { analyseRun } from '../analysis/analyse-run.ts';
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
  return {
    ...runFigures(result),
    ...recoveryOf(stored),
    dir,
    label: basename(dir),
    startedAt: result.startedAt,
    profileName: result.profile.name,
    verdict: verdictOf(stored),
    kind: 'run',
    interrupted: result.interrupted,
  };
}

function qualificationSnapshot(dir: string): Snapshot {
  const q = readQualification(dir);
  const nearest = completeSteps(q.steps).sort((a, b) => Math.abs(a.askedRps - q.expectedPeakRps) - Math.abs(b.askedRps - q.expectedPeakRps))[0];
  let figures: Pick<Snapshot, 'latency' | 'requests' | 'p99Us'> = { requests: { failed: 0, total: 0 } };
  if (nearest && existsSync(join(dir, nearest.dir, 'result.json'))) {
    figures = runFigures(readRunFolder(join(dir, nearest.dir)).result);
  }
  const { pass, fail } = bracket(q.steps);
  return {
    ...figures,
    dir,
    label: basename(dir),
    startedAt: q.startedAt,
    profileName: q.profile.name,
    verdict: q.verdict,
    kind: 'qualification',
    // Files from before `interrupted` existed: a step cut short still tells.
    interrupted: q.interrupted === true || q.steps.some((s) => s.interrupted),
    capacity: { pass, fail, failoverPass: q.failover?.pass },
    capacityRps: q.capacityRps,
  };
}

function runFigures(result: RunResult): Pick<Snapshot, 'latency' | 'requests' | 'p99Us'> {
  const total = result.requests.ok + result.requests.failed + result.requests.dropped;
  const latency = decodeFromCompressedBase64(result.histograms.latency) as Histogram;
  return { latency, requests: { failed: result.requests.failed + result.requests.dropped, total }, p99Us: result.latencyUs.p99 };
}

/** The time to recover from each timeline event, as stored, or judged now for a folder analysed before it existed. */
function recoveryOf(stored: StoredRun): Pick<Snapshot, 'recovery'> {
  if (!stored.result.timeline) return {};
  const timeline = stored.analysis?.timeline ?? (stored.profile ? analyseRun(stored.result, stored.profile).timeline : undefined);
  return timeline ? { recovery: { spanMs: timeline.criteria.spanMs, events: timeline.events.map((e) => ({ label: e.label, type: e.type, recoveryMs: e.recoveryMs })) } } : {};
}

/** The stored verdict; a folder without analysis.json is judged now from its result and profile. */
function verdictOf(stored: StoredRun): string {
  if (stored.analysis) return stored.analysis.verdict;
  return stored.profile ? analyseRun(stored.result, stored.profile).verdict : 'unknown';
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
