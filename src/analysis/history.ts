import { type Comparison, compareRuns, type Snapshot } from './compare.ts';
import { acrossNights } from './nights-noise.ts';

/** One run in a history, judged against the last comparable run of the same profile before it. */
export interface HistoryEntry {
  snapshot: Snapshot;
  /** Absent for the first run of its profile: nothing to compare it with. */
  vsPrevious?: Comparison;
}

/** The runs of one profile, oldest first. */
export interface ProfileHistory {
  profileName: string;
  entries: HistoryEntry[];
}

/** Where a profile stands now: its latest night, its verdict, and what regressed that night. */
export interface LatestNight {
  profileName: string;
  label: string;
  verdict: string;
  /** The metrics that regressed against the night before it; empty when none did. */
  regressed: string[];
  /** Its figures are no evidence (INVALID, interrupted): compared with nothing. */
  notComparable: boolean;
}

export interface History {
  profiles: ProfileHistory[];
  runs: number;
  /** "profile run (metrics)" for every run that regressed against the previous comparable run of its profile. */
  regressions: string[];
  /** Each profile's latest night. */
  latest: LatestNight[];
  /** The badge: the worst of the latest nights' verdicts (an INVALID night is not green). */
  verdict: string;
  /** A latest night failed, was not valid, or regressed: what an unattended job should alert on. */
  alarming: boolean;
}

/** Verdicts from worst to best: the badge of several profiles is the worst of their latest nights. */
const VERDICT_ORDER = ['FAIL', 'DIVERGED', 'INVALID', 'unknown', 'NO SLO', 'PASS'];

/**
 * A folder of runs, grouped by profile and ordered by start time; each run is compared (as
 * `stampede compare` does: capacity brackets, latency beyond sampling and run-to-run noise, error
 * rate) with the last comparable run of the same profile before it, never with a run of another
 * profile; from MIN_NIGHTS comparable nights on, their night-to-night spread is noise a difference
 * must clear too. A run whose figures are no evidence (INVALID, interrupted) stays in its profile's list,
 * marked not comparable with its reasons, and is no trend point: the next run is compared with the
 * last comparable one. Pure.
 */
export function buildHistory(snapshots: readonly Snapshot[]): History {
  const byProfile = new Map<string, Snapshot[]>();
  for (const s of [...snapshots].sort(byStart)) byProfile.set(s.profileName, [...(byProfile.get(s.profileName) ?? []), s]);
  const profiles = [...byProfile.keys()].sort().map((profileName) => {
    const runs = byProfile.get(profileName)!;
    const comparable: Snapshot[] = [];
    const entries = runs.map((snapshot): HistoryEntry => {
      const previous = comparable.at(-1);
      const entry = previous ? { snapshot, vsPrevious: compareRuns(previous, snapshot, acrossNights(comparable)) } : { snapshot };
      if (snapshot.notComparable.length === 0) comparable.push(snapshot);
      return entry;
    });
    return { profileName, entries };
  });
  const regressedMetrics = (e: HistoryEntry) => (e.vsPrevious?.rows ?? []).filter((r) => r.change === 'regressed').map((r) => r.metric);
  const regressions = profiles.flatMap((p) =>
    p.entries.filter((e) => e.vsPrevious?.regressed).map((e) => `${p.profileName} ${e.snapshot.label} (${regressedMetrics(e).join(', ')})`),
  );
  const latest = profiles.map((p): LatestNight => {
    const last = p.entries.at(-1)!;
    return {
      profileName: p.profileName,
      label: last.snapshot.label,
      verdict: last.snapshot.verdict,
      regressed: regressedMetrics(last),
      notComparable: last.snapshot.notComparable.length > 0,
    };
  });
  const verdict = latest.map((l) => l.verdict).sort((a, b) => rank(a) - rank(b))[0] ?? 'unknown';
  const alarming = latest.some((l) => l.regressed.length > 0 || (l.verdict !== 'PASS' && l.verdict !== 'NO SLO'));
  return { profiles, runs: snapshots.length, regressions, latest, verdict, alarming };
}

function rank(verdict: string): number {
  const i = VERDICT_ORDER.indexOf(verdict);
  return i < 0 ? VERDICT_ORDER.indexOf('unknown') : i;
}

function byStart(a: Snapshot, b: Snapshot): number {
  return a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.label.localeCompare(b.label);
}
