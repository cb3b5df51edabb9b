import { type Comparison, compareRuns, type Snapshot } from './compare.ts';

/** One run in a history, judged against the previous run of the same profile. */
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

export interface History {
  profiles: ProfileHistory[];
  runs: number;
  /** "profile run (metrics)" for every run that regressed against the previous run of its profile. */
  regressions: string[];
}

/**
 * A folder of runs, grouped by profile and ordered by start time; each run is compared (as
 * `stampede compare` does: capacity brackets, latency intervals, error rate) with the run of the
 * same profile before it, never with a run of another profile. An interrupted run stays in its
 * profile's list, flagged, but is no trend point: it is compared with nothing, and the next run is
 * compared with the last complete one. Pure.
 */
export function buildHistory(snapshots: readonly Snapshot[]): History {
  const byProfile = new Map<string, Snapshot[]>();
  for (const s of [...snapshots].sort(byStart)) byProfile.set(s.profileName, [...(byProfile.get(s.profileName) ?? []), s]);
  const profiles = [...byProfile.keys()].sort().map((profileName) => {
    const runs = byProfile.get(profileName)!;
    let previous: Snapshot | undefined;
    const entries = runs.map((snapshot): HistoryEntry => {
      if (snapshot.interrupted) return { snapshot };
      const entry = previous ? { snapshot, vsPrevious: compareRuns(previous, snapshot) } : { snapshot };
      previous = snapshot;
      return entry;
    });
    return { profileName, entries };
  });
  const regressions = profiles.flatMap((p) =>
    p.entries
      .filter((e) => e.vsPrevious?.regressed)
      .map(
        (e) =>
          `${p.profileName} ${e.snapshot.label} (${e
            .vsPrevious!.rows.filter((r) => r.change === 'regressed')
            .map((r) => r.metric)
            .join(', ')})`,
      ),
  );
  return { profiles, runs: snapshots.length, regressions };
}

function byStart(a: Snapshot, b: Snapshot): number {
  return a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.label.localeCompare(b.label);
}
