import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { awaitBarrier, type BarrierSpec, OUTCOME_FILE } from '../../src/barrier/barrier.ts';
import { BarrierError, BarrierInterrupted } from '../../src/barrier/errors.ts';
import { ArtifactWriteError } from '../../src/run-folder/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-barrier-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let folders = 0;
function barrierDir(): string {
  return join(scratch, `run-${++folders}`);
}

const never = new AbortController().signal;

function spec(dir: string, index: number, count: number, timeoutMs = 60_000): BarrierSpec {
  return { dir, segment: { index, count }, timeoutMs, leadMs: 2_000, toleranceMs: 5_000, pollMs: 10 };
}

/** Until segment `index` has registered: the test's way of knowing who is waiting, without assuming how long anything takes. */
async function registered(dir: string, index: number, count: number): Promise<void> {
  while (!existsSync(join(dir, `ready-${index}-of-${count}.json`))) await sleep(5);
}

describe('the start barrier: files in a folder every segment shares', () => {
  it('releases every segment at one start, a little after the last arrived, however late it came within the bound', async () => {
    const dir = barrierDir();
    const early = [awaitBarrier(spec(dir, 0, 3), never), awaitBarrier(spec(dir, 1, 3), never)];
    await Promise.all([registered(dir, 0, 3), registered(dir, 1, 3)]);
    const lastArrivedMs = Date.now();
    const starts = await Promise.all([...early, awaitBarrier(spec(dir, 2, 3), never)]);
    expect(new Set(starts).size).toBe(1);
    expect(starts[0]).toBeGreaterThanOrEqual(lastArrivedMs + 2_000);
  });

  it('is abandoned once a segment has waited its bound: every segment fails naming the ones that never arrived, and so does one coming after', async () => {
    const dir = barrierDir();
    const waiting = await Promise.allSettled([awaitBarrier(spec(dir, 0, 3, 100), never), awaitBarrier(spec(dir, 1, 3, 100), never)]);
    for (const outcome of waiting) {
      expect(outcome.status).toBe('rejected');
      const error = (outcome as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(BarrierError);
      // Segment 1 may have registered only after segment 0 gave up: then both are named.
      expect(error.message).toMatch(/^segments? (1 and )?2 of 3 never arrived at the barrier in .* \(segment [01] gave up at .*\): the run did not start, nothing was sent$/);
    }
    const late = awaitBarrier(spec(dir, 2, 3, 100), never);
    await expect(late).rejects.toThrow(/2 of 3 never arrived .*; this segment \(2\) came after that\): the run did not start/);
  });

  it('does not let a segment join a run that started without it (a rerun pod), but one within the start tolerance catches up', async () => {
    const dir = barrierDir();
    const starts = await Promise.all([awaitBarrier(spec(dir, 0, 2), never), awaitBarrier(spec(dir, 1, 2), never)]);
    const pastMs = Date.now() - 60_000;
    writeFileSync(join(dir, OUTCOME_FILE), JSON.stringify({ startAt: new Date(pastMs).toISOString(), by: 1 }));
    await expect(awaitBarrier(spec(dir, 1, 2), never)).rejects.toThrow(
      /started at .*, \d+ s ago, without segment 1 of 2: a segment that arrives after the start cannot rejoin its run/,
    );
    const recentMs = Date.now() - 1_000;
    writeFileSync(join(dir, OUTCOME_FILE), JSON.stringify({ startAt: new Date(recentMs).toISOString(), by: 1 }));
    await expect(awaitBarrier(spec(dir, 1, 2), never)).resolves.toBe(recentMs);
    expect(starts[0]).toBe(starts[1]);
  });

  it('refuses a folder another run of a different segment count registered in', async () => {
    const dir = barrierDir();
    const other = awaitBarrier(spec(dir, 0, 4), never).catch((error: unknown) => error);
    await registered(dir, 0, 4);
    await expect(awaitBarrier(spec(dir, 1, 3), never)).rejects.toThrow(
      /ready-0-of-4\.json registers segment 0 of 4, but this run has 3 segments: two runs share the barrier folder/,
    );
    expect(await other).toBeInstanceOf(BarrierError);
  });

  it('leaves on a signal without deciding anything, and cannot start where the folder cannot be made', async () => {
    const dir = barrierDir();
    const abort = new AbortController();
    const waiting = awaitBarrier(spec(dir, 0, 2), abort.signal);
    await registered(dir, 0, 2);
    abort.abort();
    await expect(waiting).rejects.toBeInstanceOf(BarrierInterrupted);
    expect(existsSync(join(dir, OUTCOME_FILE))).toBe(false);
    const file = join(scratch, 'a-file');
    writeFileSync(file, '');
    await expect(awaitBarrier(spec(join(file, 'barrier'), 0, 2), never)).rejects.toBeInstanceOf(ArtifactWriteError);
  });
});
