import { parseTarget, protocolOf } from '../profile/protocols/registry.ts';
import type { Profile } from '../profile/types.ts';
import type { RunResult } from '../recorder/result.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readRunFolder, RUN_FILES } from '../run-folder/index.ts';
import { SegmentMergeError } from './errors.ts';

/** One segment's run folder, read back. */
export interface SegmentRun {
  dir: string;
  result: RunResult;
  profile: Profile;
  segment: { index: number; count: number; startAt?: string };
}

/** Each folder's result and profile; a folder that is no segment's is refused by name. */
export function readSegments(dirs: readonly string[]): SegmentRun[] {
  return dirs.map((dir) => {
    let stored: ReturnType<typeof readRunFolder>;
    try {
      stored = readRunFolder(dir);
    } catch (error) {
      throw new SegmentMergeError(`${dir}: not a run folder (${(error as Error).message.split('\n')[0]})`);
    }
    if (!stored.profile) throw new SegmentMergeError(`${dir}: no profile.json, so it cannot be judged again`);
    if (!stored.result.segment) throw new SegmentMergeError(`${dir}: not a segment (it ran without --segment i/N)`);
    const unsaved = unsavedLogs(dir, stored.result.files);
    if (unsaved.length > 0)
      throw new SegmentMergeError(`${dir}: its ${unsaved.join(' and ')} ${unsaved.length > 1 ? 'were' : 'was'} not saved whole, so its intervals cannot be added`);
    return { dir, result: stored.result, profile: stored.profile, segment: stored.result.segment };
  });
}

/** The interval logs a merge adds up that the folder lacks, or that its result.json does not name as whole (the disk cut them). */
function unsavedLogs(dir: string, whole: readonly string[] | undefined): string[] {
  return [RUN_FILES.latencyLog, RUN_FILES.intervals].filter((name) => !existsSync(join(dir, name)) || (whole !== undefined && !whole.includes(name)));
}

/**
 * The segments must be every segment of one run, once: the same profile (file digest and
 * overrides), seed, target, interval and clock origin, indexes 0 to N−1 each once. Anything else
 * would add up traffic that was never one schedule.
 */
export function checkSegments(segments: readonly SegmentRun[]): void {
  if (segments.length === 0) throw new SegmentMergeError('no segments to merge');
  const first = segments[0]!;
  const same = (what: string, of: (s: SegmentRun) => unknown) => {
    const want = JSON.stringify(of(first));
    const other = segments.find((s) => JSON.stringify(of(s)) !== want);
    if (other) throw new SegmentMergeError(`${other.dir} and ${first.dir} differ in ${what} (${JSON.stringify(of(other))} vs ${want}): they are not segments of one run`);
  };
  same('seed', (s) => s.result.seed);
  same('profile', (s) => ({ name: s.result.profile.name, sha256: s.result.profile.sha256, overrides: s.result.profile.overrides }));
  same('target', (s) => s.result.target);
  same('segment count', (s) => s.segment.count);
  same('interval', (s) => s.result.intervals.intervalMs);
  same('shared start (--start-at)', (s) => s.segment.startAt ?? null);
  // Wall-clock intervals line up only from one origin; the model's virtual time always starts at 0.
  if (!protocolOf(parseTarget(first.result.target)).simulated && first.segment.startAt === undefined) {
    throw new SegmentMergeError(`${first.dir} ran without --start-at: segments on a real target need one shared start for their intervals to line up`);
  }
  const count = first.segment.count;
  const seen = new Map<number, string>();
  for (const s of segments) {
    const twice = seen.get(s.segment.index);
    if (twice !== undefined) throw new SegmentMergeError(`segment ${s.segment.index}/${count} given twice: ${twice} and ${s.dir}`);
    seen.set(s.segment.index, s.dir);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0)
    throw new SegmentMergeError(`segment${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: a merge needs all ${count}`);
}
