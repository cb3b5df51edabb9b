import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startExec } from '../../src/driver/timeline/exec.ts';

/** Running: in the process table and not a zombie (a killed orphan stays one until something reaps it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Whether `pid` is gone within a few seconds (SIGKILL is sent before the outcome resolves; the kernel takes a moment). */
async function goneSoon(pid: number): Promise<boolean> {
  for (let i = 0; i < 250 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return !alive(pid);
}

/** A command whose own child outlives it unless the whole group is killed: prints that child's pid. */
const FORKS = ['/bin/sh', '-c', 'sleep 1000 & echo $!; wait; echo never'];

describe('a timeline exec command', () => {
  it('is killed with its whole process group at its timeout: no grandchild outlives it or holds its output', async () => {
    const exec = startExec(FORKS, 300, () => performance.now());
    const outcome = await exec.done;
    expect(outcome.timedOut).toBe(true);
    expect(outcome.outputTail).not.toContain('never');
    const grandchild = Number(outcome.outputTail.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(await goneSoon(grandchild)).toBe(true);
  });

  it('is killed with its whole group when the run ends first', async () => {
    const exec = startExec(FORKS, 60_000, () => performance.now());
    await new Promise((resolve) => setTimeout(resolve, 200));
    exec.kill();
    const outcome = await exec.done;
    expect(outcome.timedOut).toBe(false);
    expect(outcome.signal).toBe('SIGKILL');
    expect(await goneSoon(Number(outcome.outputTail.trim()))).toBe(true);
  });

  it('leaves no background process behind when it exits on its own', async () => {
    const outcome = await startExec(['/bin/sh', '-c', 'sleep 1000 > /dev/null 2>&1 & echo $!'], 60_000, () => performance.now()).done;
    expect(outcome.exitCode).toBe(0);
    const background = Number(outcome.outputTail.trim());
    // The group is killed once the command's output closes; without that the sleep would run 1000 s.
    expect(await goneSoon(background)).toBe(true);
  });
});
