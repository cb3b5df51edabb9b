import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startExec } from '../../src/driver/timeline/exec.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-exec-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Running: in the process table and not a zombie (a killed orphan stays one until something reaps it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Polls (bounded, a few seconds) until `test` holds; returns whether it did. */
async function soon(test: () => boolean): Promise<boolean> {
  for (let i = 0; i < 250 && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return test();
}

/** A command whose own child would outlive it unless the whole group is killed; the child's pid goes to `pidFile`. */
function forking(pidFile: string): string[] {
  return ['/bin/sh', '-c', `sleep 1000 & echo $! > ${pidFile}; wait; echo never`];
}

async function grandchildOf(pidFile: string): Promise<number> {
  expect(await soon(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '')).toBe(true);
  return Number(readFileSync(pidFile, 'utf8').trim());
}

describe('a timeline exec command', () => {
  it('is killed with its whole process group at its timeout: no grandchild outlives it or holds its output', async () => {
    const pidFile = join(scratch, 'timeout.pid');
    const outcome = await startExec(forking(pidFile), 300, () => performance.now()).done;
    expect(outcome.timedOut).toBe(true);
    expect(outcome.outputTail).not.toContain('never');
    const grandchild = await grandchildOf(pidFile);
    expect(await soon(() => !alive(grandchild))).toBe(true);
  });

  it('is killed with its whole group when the run ends first', async () => {
    const pidFile = join(scratch, 'ended.pid');
    const exec = startExec(forking(pidFile), 60_000, () => performance.now());
    const grandchild = await grandchildOf(pidFile);
    expect(alive(grandchild)).toBe(true);
    exec.kill();
    const outcome = await exec.done;
    expect(outcome.timedOut).toBe(false);
    expect(outcome.signal).toBe('SIGKILL');
    expect(await soon(() => !alive(grandchild))).toBe(true);
  });
});
