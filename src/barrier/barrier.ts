import { open, readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ArtifactWriteError, createRunDir, writeFileAtomic } from '../run-folder/index.ts';
import { BarrierError, BarrierInterrupted } from './errors.ts';
import { describeAbandoned, describeLate } from './messages.ts';

/*
 * The start barrier of a run split into segments (`--barrier DIR`), as k6-operator holds its
 * runners: every segment registers, and the run starts once all N have, at one instant a little
 * after the last arrived. It lives in a folder every segment can write, because the pods of a
 * `stampede k8s` Job already share one (their results volume): no coordinator to reach, no Service,
 * no API access, no network between the pods. One file per segment says it arrived; one file, made
 * with an exclusive create so exactly one writer wins, says how the barrier ended — the start, or
 * that it was abandoned — and every segment, however late it looks, acts on that one file.
 *
 *   ready-<i>-of-<N>.json   segment i arrived (rewritten by a rerun of i: harmless)
 *   outcome.json            { startAt } from the last to arrive, or { abandonedAt, missing } from
 *                           the first whose wait ran out
 */

export interface BarrierSpec {
  /** The folder every segment of the run shares (and no other run). */
  dir: string;
  segment: { index: number; count: number };
  /** How long a segment waits for the others after it arrived; the first to run out abandons the barrier for all. */
  timeoutMs: number;
  /** The start is this long after the last arrival: time for every segment to read it and connect before it. */
  leadMs: number;
  /** A start this long past still starts, catching up (as `--start-at` allows); later, the segment is too late to share it. */
  toleranceMs: number;
  /** How often a waiting segment looks at the folder. */
  pollMs?: number;
}

export const OUTCOME_FILE = 'outcome.json';

/** An outcome file that stays unreadable this long was left half-written by a segment that died while writing it. */
const UNREADABLE_LIMIT_MS = 5_000;

const DEFAULT_POLL_MS = 500;

type Outcome = { startAt: string; by: number } | { abandonedAt: string; by: number; missing: number[]; waitedMs: number };

/**
 * Registers the segment and waits for the barrier's outcome. Resolves to the shared start (epoch
 * ms). @throws BarrierError when the barrier was abandoned, the run started without this segment
 * or the folder belongs to another run; BarrierInterrupted when `signal` aborts; ArtifactWriteError
 * when the folder cannot be written.
 */
export async function awaitBarrier(spec: BarrierSpec, signal: AbortSignal): Promise<number> {
  register(spec);
  const arrivedMs = Date.now();
  let unreadableSinceMs: number | undefined;
  for (;;) {
    if (signal.aborted) throw new BarrierInterrupted(`interrupted at the barrier in ${spec.dir}: nothing was sent`);
    const outcome = await readOutcome(spec.dir);
    if (outcome === 'unreadable') {
      unreadableSinceMs ??= Date.now();
      if (Date.now() - unreadableSinceMs > UNREADABLE_LIMIT_MS)
        throw new BarrierError(`${join(spec.dir, OUTCOME_FILE)} is not a barrier outcome (empty or not JSON): remove the folder to run again`);
    } else if (outcome !== undefined) {
      return settle(spec, outcome);
    } else if (await decide(spec, arrivedMs)) {
      continue;
    }
    await sleep(spec.pollMs ?? DEFAULT_POLL_MS, undefined, { signal }).catch(() => undefined);
  }
}

/** Publishes the outcome when it is this segment's to decide; true when it tried (the outcome is then there to read). */
async function decide(spec: BarrierSpec, arrivedMs: number): Promise<boolean> {
  const { index, count } = spec.segment;
  const arrived = await arrivedSegments(spec);
  const nowMs = Date.now();
  if (arrived.size === count) return publish(spec.dir, { startAt: new Date(nowMs + spec.leadMs).toISOString(), by: index });
  if (nowMs - arrivedMs < spec.timeoutMs) return false;
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !arrived.has(i));
  return publish(spec.dir, { abandonedAt: new Date(nowMs).toISOString(), by: index, missing, waitedMs: nowMs - arrivedMs });
}

function settle(spec: BarrierSpec, outcome: Outcome): number {
  if ('abandonedAt' in outcome) throw new BarrierError(describeAbandoned(spec, outcome));
  const startMs = Date.parse(outcome.startAt);
  if (startMs < Date.now() - spec.toleranceMs) throw new BarrierError(describeLate(spec, startMs));
  return startMs;
}

function register(spec: BarrierSpec): void {
  const { index, count } = spec.segment;
  createRunDir(spec.dir);
  writeFileAtomic(join(spec.dir, readyFile(index, count)), `${JSON.stringify({ segment: index, count, host: hostname(), arrivedAt: new Date().toISOString() })}\n`);
}

function readyFile(index: number, count: number): string {
  return `ready-${index}-of-${count}.json`;
}

const READY = /^ready-(\d+)-of-(\d+)\.json$/;

/** The segments that registered; one of another segment count is another run's, in the same folder. */
async function arrivedSegments(spec: BarrierSpec): Promise<Set<number>> {
  const { count } = spec.segment;
  const arrived = new Set<number>();
  for (const name of await readdir(spec.dir).catch((error) => unreadable(spec.dir, error))) {
    const match = READY.exec(name);
    if (!match) continue;
    if (Number(match[2]) !== count)
      throw new BarrierError(
        `${join(spec.dir, name)} registers segment ${match[1]} of ${match[2]}, but this run has ${count} segments: two runs share the barrier folder (give each run its own)`,
      );
    if (Number(match[1]) < count) arrived.add(Number(match[1]));
  }
  return arrived;
}

/** Creates the outcome file unless another segment already did (exclusive create: one writer wins); true either way. */
async function publish(dir: string, outcome: Outcome): Promise<true> {
  const path = join(dir, OUTCOME_FILE);
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return true;
    return failed(path, error);
  }
  try {
    await file.writeFile(`${JSON.stringify(outcome)}\n`);
    await file.sync();
  } catch (error) {
    return failed(path, error);
  } finally {
    await file.close();
  }
  return true;
}

/** The outcome, undefined while there is none, 'unreadable' while it is being written (or was left half-written). */
async function readOutcome(dir: string): Promise<Outcome | 'unreadable' | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, OUTCOME_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return unreadable(join(dir, OUTCOME_FILE), error);
  }
  try {
    const outcome = JSON.parse(text) as Partial<Record<string, unknown>>;
    if (typeof outcome.startAt === 'string' && Number.isFinite(Date.parse(outcome.startAt))) return outcome as Outcome;
    if (typeof outcome.abandonedAt === 'string' && Array.isArray(outcome.missing)) return outcome as Outcome;
  } catch {
    // Created but not written yet: read again at the next look.
  }
  return 'unreadable';
}

/** A barrier the segment cannot write is a run that cannot start (exit 3), naming the file. */
function failed(path: string, error: unknown): never {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined) throw new ArtifactWriteError(path, code);
  throw error;
}

/** One it cannot read, likewise. */
function unreadable(path: string, error: unknown): never {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined) throw new BarrierError(`cannot read ${path} (${code})`);
  throw error;
}
