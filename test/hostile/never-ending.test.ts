import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, type CliResult, repoRoot, stampedeAsync } from '../helpers/cli.ts';

/*
 * Never-ending states (issue 19): each of these once waited for ever — a timeline exec whose
 * command forks outlived its timeout and the run (the run waited for a pipe a grandchild held);
 * --start-at past Node's timer limit spun, deaf to signals; --out /proc/… retried mkdir 84,654
 * times in 6 s, deaf to SIGTERM; `report` of a FIFO result.json blocked in the read. Now each ends
 * by itself, or on the signal, with its exit code. A state that still hung would fail here by
 * the test's bound (the command is killed: status null), never by a measured time.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-hostile-never-ending-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The real CLI, killed with SIGKILL past `timeoutMs`: a command stuck in a blocking read (the bug
 * these cases guard against) ignores SIGTERM, and spawnSync would then wait for it for ever.
 */
function stampede(args: string[], timeoutMs: number): CliResult {
  const child = spawnSync(process.execPath, [CLI_ENTRY, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

const BOUND_MS = 90_000;
const MODEL_PROFILE =
  'name: hostile\nphases: [{ type: steady, rate: 100, duration: 1s }]\ntopology:\n  entry: api\n  services: { api: { workers: 8, serviceTime: { type: exponential, mean: 1ms } } }\n';
beforeAll(() => writeFileSync(join(scratch, 'model.yaml'), MODEL_PROFILE));

/** Running: in the process table and not a zombie (a killed orphan stays one until something reaps it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Polls (bounded) until `test` holds; returns whether it did. */
async function soon(test: () => boolean, ms = 10_000): Promise<boolean> {
  for (let waited = 0; waited < ms && !test(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  return test();
}

describe('never-ending states end', { timeout: BOUND_MS + 30_000 }, () => {
  let target: Server;
  let url: string;
  beforeAll(async () => {
    target = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => target.close(() => resolve())));

  it('a timeline exec that forks (sleep 1000; echo never) is killed, its whole group, at its timeout: the run ends, no process is left behind', async () => {
    const pids = { shell: join(scratch, 'shell.pid'), sleep: join(scratch, 'sleep.pid') };
    const command = `echo $$ > ${pids.shell}; sleep 1000 & echo $! > ${pids.sleep}; wait $!; echo never`;
    const profile = join(scratch, 'forking-exec.yaml');
    // Generator limits loosened: on a busy shared machine a late timer must not turn the verdict INVALID (exit 1).
    writeFileSync(
      profile,
      `name: forking-exec\nphases: [{ type: steady, rate: 20, duration: 2s }]\ngenerator: { eventLoopLagP99: 10s, cpu: 1, dispatchLatenessP99: 10s, connectionWaitLatenessP99: 10s }\ntopology:\n  entry: api\n  services: { api: { workers: 1, serviceTime: { type: fixed, value: 1ms } } }\n  timeline:\n    - { type: exec, at: 0.2s, timeout: 2s, command: [/bin/sh, -c, ${JSON.stringify(command)}] }\n`,
    );
    const out = join(scratch, 'forking-exec');
    // Before the group kill this never ended: the run waited for the output pipe the orphaned sleep held.
    const r = await stampedeAsync(['run', profile, '--target', url, '--allow-exec', '--out', out, '--quiet'], BOUND_MS);
    expect(r.status, r.stderr).toBe(0);
    const exec = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')).timeline[0].exec;
    expect(exec).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: true });
    expect(exec.outputTail).not.toContain('never');
    for (const file of Object.values(pids)) {
      const pid = Number(readFileSync(file, 'utf8').trim());
      expect(pid).toBeGreaterThan(0);
      expect(await soon(() => !alive(pid)), `${file}: pid ${pid} still running`).toBe(true);
    }
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s during a --start-at wait an hour ahead ends the run at once: exit %i, an interrupted result with nothing sent', async (signal, code) => {
    const out = join(scratch, `start-at-${signal}`);
    const startAt = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const child: ChildProcess = spawn(process.execPath, [CLI_ENTRY, 'run', join(scratch, 'model.yaml'), '--segment', '0/2', '--start-at', startAt, '--out', out], {
      cwd: repoRoot,
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (status) => resolve(status)));
    const bound = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
    try {
      expect(await soon(() => stderr.includes('waiting for the shared start at'), BOUND_MS)).toBe(true);
      child.kill(signal);
      expect(await exited, stderr).toBe(code);
    } finally {
      clearTimeout(bound);
    }
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(result.interrupted).toBe(true);
    expect(result.requests.sent).toBe(0);
  });

  it('--out /proc/stampede-out: exit 3 at once, naming the folder', () => {
    const r = stampede(['run', join(scratch, 'model.yaml'), '--out', '/proc/stampede-out'], BOUND_MS);
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toBe('stampede: could not write /proc/stampede-out: no folder can be made there (ENOENT)\n');
  });

  it('report of a folder whose result.json is a FIFO: exit 2 at once, naming it', () => {
    const run = join(scratch, 'run');
    expect(stampede(['run', join(scratch, 'model.yaml'), '--out', run, '--quiet'], BOUND_MS).status).toBe(0);
    const dir = join(scratch, 'fifo-result');
    cpSync(run, dir, { recursive: true });
    rmSync(join(dir, 'result.json'));
    execFileSync('mkfifo', [join(dir, 'result.json')]);
    const r = stampede(['report', dir], BOUND_MS);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toBe(`stampede: ${join(dir, 'result.json')}: a FIFO (named pipe), not a regular file\n`);
    expect(existsSync(join(dir, 'result.json'))).toBe(true);
  });
});
