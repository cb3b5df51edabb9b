import { join } from 'node:path';
import { loadProfile } from '../../../src/profile/load.ts';
import { runProfileOnModel, type ModelRunResult } from '../support/run.ts';

export const SEEDS = [1, 2, 3] as const;

/** Runs a shipped profile (with `--set` overrides) on the model for one seed; invariants are checked by the runner. */
export async function rehearse(profile: string, seed: number, overrides: string[] = []): Promise<ModelRunResult> {
  const path = join(import.meta.dirname, '../../../profiles', `${profile}.yaml`);
  return runProfileOnModel(await loadProfile(path, [`seed=${seed}`, ...overrides]), { maxLatencyUs: 10_000_000 });
}

/** One gauge over the run's 1 s intervals (missing values read as 0). */
export function series(result: ModelRunResult, gauge: string): number[] {
  return result.recorder.intervals.map((g) => g[gauge] ?? 0);
}

/** Mean of `values[from..to)`. */
export function mean(values: number[], from = 0, to = values.length): number {
  const part = values.slice(from, to);
  return part.reduce((a, b) => a + b, 0) / Math.max(1, part.length);
}
