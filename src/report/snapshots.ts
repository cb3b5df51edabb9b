import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ComparableRun } from '../analysis/compare.ts';
import { bracket } from '../qualify/search.ts';
import type { Qualification } from '../qualify/types.ts';
import { realismFlags, runVerdict } from '../realism/index.ts';
import type { Histogram } from '../recorder/histograms.ts';
import type { RunResult } from '../recorder/result.ts';
import { loadRunArtifacts } from './artifacts.ts';
import { mergeIntervals } from './latency-log.ts';

/** A stored run or qualification, read back for compare and history. */
export interface Snapshot extends ComparableRun {
  dir: string;
  startedAt: string;
  profileName: string;
  verdict: string;
  kind: 'run' | 'qualification';
  /** p99 of the measured latency (for a qualification: of the step nearest the expected peak), µs. */
  p99Us?: number | undefined;
  capacityRps?: number | undefined;
}

export function isRunDir(dir: string): boolean {
  return existsSync(join(dir, 'result.json')) || existsSync(join(dir, 'qualification.json'));
}

/** Reads a run folder (result.json, latency.hlog) or a qualification folder (qualification.json and its steps). */
export function loadSnapshot(dir: string): Snapshot {
  if (existsSync(join(dir, 'qualification.json'))) return qualificationSnapshot(dir);
  const artifacts = loadRunArtifacts(dir);
  const result = artifacts.result;
  const verdict = runVerdict(result.slo, artifacts.profile ? realismFlags({ profile: artifacts.profile, result }) : []);
  return {
    ...runFigures(result, measuredLatency(result, artifacts.latencyLog)),
    dir,
    label: basename(dir),
    startedAt: result.startedAt,
    profileName: result.profile.name,
    verdict,
    kind: 'run',
  };
}

function qualificationSnapshot(dir: string): Snapshot {
  const q = JSON.parse(readFileSync(join(dir, 'qualification.json'), 'utf8')) as Qualification;
  const nearest = [...q.steps].sort((a, b) => Math.abs(a.askedRps - q.expectedPeakRps) - Math.abs(b.askedRps - q.expectedPeakRps))[0];
  let figures: Pick<Snapshot, 'latency' | 'requests' | 'p99Us'> = { requests: { failed: 0, total: 0 } };
  if (nearest && existsSync(join(dir, nearest.dir, 'result.json'))) {
    const artifacts = loadRunArtifacts(join(dir, nearest.dir));
    figures = runFigures(artifacts.result, measuredLatency(artifacts.result, artifacts.latencyLog));
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
    capacity: { pass, fail, failoverPass: q.failover?.pass },
    capacityRps: q.capacityRps,
  };
}

function runFigures(result: RunResult, latency: Histogram | undefined): Pick<Snapshot, 'latency' | 'requests' | 'p99Us'> {
  const total = result.requests.ok + result.requests.failed + result.requests.dropped;
  return { latency, requests: { failed: result.requests.failed + result.requests.dropped, total }, p99Us: result.latencyUs.p99 };
}

function measuredLatency(result: RunResult, log: ReturnType<typeof loadRunArtifacts>['latencyLog']): Histogram | undefined {
  if (!log) return undefined;
  const warmup = new Set(result.intervals.filter((i) => i.warmup).map((i) => i.tMs));
  return mergeIntervals(log.filter((i) => !warmup.has(i.tMs)));
}

/** Every run or qualification folder under `root` (any depth), oldest first by start time. */
export function findSnapshotDirs(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    if (isRunDir(dir)) {
      found.push(dir);
      return; // a qualification's steps are part of it, not nights of their own
    }
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
    }
  };
  walk(root);
  return found;
}
