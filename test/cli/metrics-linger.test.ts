import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, repoRoot, stampede } from '../helpers/cli.ts';
import { freePort } from '../helpers/targets.ts';
import { sample } from '../live/exposition.ts';

/*
 * --metrics-linger through the real CLI on the model: the endpoint keeps the finished run's figures
 * until the linger ends or a signal does. Nothing here waits a fixed time: each test polls the
 * endpoint until it serves the phase `done`, so a busy machine only makes it slower.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-linger-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PROFILE = 'test/fixtures/cli/small.yaml';
/** An SLO no run meets: the verdict is FAIL, exit 1, which no signal's code (130, 143) could be mistaken for. */
const FAILING = ['--set', 'slo.latency[0].max=1us'];

/** The CLI as a child of this test, with the endpoint it serves on a free port. */
async function lingeringRun(args: string[], linger: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/metrics`;
  const child = spawn(process.execPath, [CLI_ENTRY, ...args, '--metrics-port', String(port), '--metrics-linger', linger], { cwd: repoRoot });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.resume();
  const killer = setTimeout(() => child.kill('SIGKILL'), 100_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (status) => {
      clearTimeout(killer);
      resolve(status);
    }),
  );
  /** What the endpoint serves once the run has ended (phase done), polled until then. */
  const finished = async (): Promise<string> => {
    for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const text = await fetch(url).then(
        (r) => r.text(),
        () => '',
      );
      if (/stampede_run_phase\{phase="done"[^}]*\} 1$/m.test(text)) return text;
    }
    throw new Error(`the endpoint never served the finished run; stderr:\n${stderr}`);
  };
  return { url, child, exited, finished, stderr: () => stderr };
}

describe('--metrics-linger', () => {
  it('keeps the finished run’s figures scrapeable, says so, and stops when the linger ends', async () => {
    const out = join(scratch, 'lingered');
    const run = await lingeringRun(['run', PROFILE, '--out', out], '3s');
    const text = await run.finished();
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(sample(text, 'stampede_requests_total', { outcome: 'ok' })).toBe(result.requests.ok);
    expect(sample(text, 'stampede_run_info', { profile: 'small', run: result.startedAt })).toBe(1);
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toContain(`metrics: the final figures stay at ${run.url} for 3s for Prometheus to scrape (Ctrl-C ends it now)`);
    await expect(fetch(run.url)).rejects.toThrow();
  });

  it('SIGTERM during the linger ends it at once with the run’s verdict exit code, not 143', async () => {
    const out = join(scratch, 'terminated');
    const run = await lingeringRun(['run', PROFILE, '--out', out, ...FAILING], '10m');
    await run.finished();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(1);
    expect(JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8')).verdict).toBe('FAIL');
    expect(run.stderr()).not.toContain('stopping');
  });

  it('qualify lingers too, and Ctrl-C (SIGINT) ends it with the qualification’s exit code, not 130', async () => {
    const out = join(scratch, 'qualified');
    const run = await lingeringRun(['qualify', PROFILE, '--out', out, '--step', '1s', '--warmup', '0', '--max-steps', '1', ...FAILING], '10m');
    const text = await run.finished();
    const qualification = JSON.parse(readFileSync(join(out, 'qualification.json'), 'utf8'));
    expect(sample(text, 'stampede_run_info', { run: qualification.startedAt })).toBe(1);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(qualification.verdict === 'PASS' ? 0 : 1);
  });

  it('0 turns it off', async () => {
    const port = await freePort();
    const off = stampede(['run', PROFILE, '--out', join(scratch, 'off'), '--metrics-port', String(port), '--metrics-linger', '0']);
    expect(off.status).toBe(0);
    expect(off.stderr).toBe(`metrics: http://127.0.0.1:${port}/metrics\n`);
  });

  it('a value that is not a duration, or over an hour, is refused (exit 2)', () => {
    const bad = stampede(['run', PROFILE, '--out', join(scratch, 'bad'), '--metrics-linger', 'soon']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--metrics-linger');
    const long = stampede(['run', PROFILE, '--out', join(scratch, 'long'), '--metrics-linger', '2h']);
    expect(long.status).toBe(2);
    expect(long.stderr).toContain('at most 1h');
  });
});
