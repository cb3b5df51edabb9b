import { spawn } from 'node:child_process';
import { kill } from 'node:process';
import type { ExecOutcome } from '../../recorder/driver-report.ts';

/** Most bytes of a command's output kept in result.json: its last lines, where a failure says why. */
export const EXEC_OUTPUT_TAIL_BYTES = 4096;

/** A command started by the timeline: its outcome when it ends, and a way to end it early (the run ended). */
export interface RunningExec {
  readonly done: Promise<ExecOutcome>;
  kill(): void;
}

/**
 * Runs argv as given (never through a shell unless argv is the user's own `/bin/sh -c <command>`),
 * with stdin closed, in a process group of its own, killed — the whole group — with SIGKILL past
 * `timeoutMs`, or when the run is interrupted; an uninterrupted run waits for it, up to that timeout,
 * rather than cut a restart short (a command that exits in time may leave a server it started
 * running: that is what a failover rehearsal's "restart it" asks for). Killing only the direct child left its children (`sh -c 'sleep
 * 1000; …'`) running past the run, holding the output pipe the outcome waits for. Never rejects: a
 * command that cannot start is an outcome with its error.
 */
export function startExec(argv: readonly string[], timeoutMs: number, nowMs: () => number): RunningExec {
  const started = nowMs();
  let tail = Buffer.alloc(0);
  const keep = (chunk: Buffer) => {
    tail = Buffer.concat([tail, chunk]);
    if (tail.length > EXEC_OUTPUT_TAIL_BYTES) tail = tail.subarray(tail.length - EXEC_OUTPUT_TAIL_BYTES);
  };
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], shell: false, detached: true });
  // Once the group's pipes have closed its members are gone, and its id may be another's by now.
  let closed = false;
  const killGroup = () => {
    if (child.pid === undefined || closed) return;
    try {
      kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is gone already (every process in it exited).
    }
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, timeoutMs);
  const done = new Promise<ExecOutcome>((resolve) => {
    let error: string | undefined;
    child.once('error', (e) => (error = e.message));
    child.once('close', (code, signal) => {
      closed = true;
      clearTimeout(timer);
      resolve({
        argv: [...argv],
        // A spawn that failed reports the errno as its code: it has no exit code.
        exitCode: error === undefined ? code : null,
        signal,
        durationMs: Math.round((nowMs() - started) * 10) / 10,
        timedOut,
        outputTail: tail.toString('utf8'),
        ...(error !== undefined && { error }),
      });
    });
  });
  return { done, kill: killGroup };
}
