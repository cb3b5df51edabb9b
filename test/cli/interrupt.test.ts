import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, repoRoot, stampede } from '../helpers/cli.ts';

/*
 * Interruption never lies: SIGINT and SIGTERM stop the traffic, keep what was measured, say so in
 * every artifact and the exit code (130, 143), and a second signal does not lose the files.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-interrupt-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

function start(args: string[]): Started {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: repoRoot });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** Waits (bounded) until `ready` holds: the command is under way, however slowly the machine started it. */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let waited = 0; waited < 90_000; waited += 50) {
    if (ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const logGrown = (dir: string) => () => existsSync(join(dir, 'latency.hlog')) && statSync(join(dir, 'latency.hlog')).size > 20_000;
// An hour of virtual traffic: far longer than any test waits.
const HOUR_RUN = ['run', 'test/fixtures/cli/small.yaml', '--set', 'phases[0].duration=1h'];

describe('stampede run, interrupted', { timeout: 120_000 }, () => {
  it('a second SIGINT right after the first still leaves every file whole, exit 130', async () => {
    const out = join(scratch, 'double-sigint');
    const run = start([...HOUR_RUN, '--out', out]);
    await until(logGrown(out), 'the run to be under way');
    run.child.kill('SIGINT');
    // Two signals sent back to back merge into one (the kernel does not queue them): the second goes once the first is seen.
    await until(() => run.output.stderr.includes('SIGINT: stopping'), 'the first signal to be seen');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    // Whether the second signal lands while the files are written or after the process is gone depends on
    // the machine's speed; either way every file is whole. That a second signal is ignored while writing
    // is tested on the handler itself (signals.test.ts).
    for (const file of ['result.json', 'analysis.json', 'profile.json', 'summary.md', 'report.md', 'report.html']) expect(existsSync(join(out, file)), file).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')).interrupted).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8')).verdict).toBe('INVALID');
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toMatch(/<\/html>\s*$/);
  });

  it('on SIGTERM keeps what it measured and exits 143', async () => {
    const out = join(scratch, 'sigterm');
    const run = start([...HOUR_RUN, '--out', out]);
    await until(logGrown(out), 'the run to be under way');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(143);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(result.interrupted).toBe(true);
    expect(result.requests.sent).toBeGreaterThan(1000);
    expect(run.output.stdout).toContain('interrupted: partial results');
    expect(existsSync(join(out, 'report.md'))).toBe(true);
    // The terminal, the summary and the report say the same thing about the cut.
    const heading = readFileSync(join(out, 'summary.md'), 'utf8').split('\n')[0];
    expect(heading).toBe('# small: INVALID (interrupted: partial results)');
    expect(readFileSync(join(out, 'report.md'), 'utf8').split('\n')[0]).toBe(heading);
  });
});

describe('stampede qualify, interrupted', { timeout: 180_000 }, () => {
  const out = join(scratch, 'qualify');

  it('judges only the complete steps, never passes, and says so in qualification.json, the report and the exit code', async () => {
    // Step 1 at 100 rps is short; step 2 at 1,000 rps (growth 10) runs ten times as long: the signal lands in it.
    const q = start(['qualify', 'test/fixtures/cli/small.yaml', '--out', out, '--step', '600s', '--warmup', '0s', '--start', '100', '--growth', '10']);
    await until(() => q.output.stderr.includes('step 1:'), 'the first step to finish');
    q.child.kill('SIGINT');
    expect(await q.exited).toBe(130);
    const qualification = JSON.parse(readFileSync(join(out, 'qualification.json'), 'utf8'));
    expect(qualification.interrupted).toBe(true);
    expect(qualification.verdict).toBe('INVALID');
    expect(qualification.steps).toHaveLength(2);
    expect(qualification.steps[0]).toMatchObject({ askedRps: 100, pass: true });
    expect(qualification.steps[0].interrupted).toBeUndefined();
    expect(qualification.steps[1]).toMatchObject({ askedRps: 1000, interrupted: true });
    // The cut step is not the capacity, the limit or the knee.
    expect(qualification.capacityRps).toBe(100);
    expect(qualification.limit).toBeUndefined();
    expect(qualification.knee).toBeUndefined();
    expect(qualification.reasons[0]).toMatch(/^interrupted after 1 complete step; the step at 1000 rps was cut short and is not judged/);
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report.split('\n')[0]).toBe('# small qualification: INVALID (interrupted: partial results)');
    expect(report).toContain('interrupted: not judged');
    expect(q.output.stdout).toContain('INVALID (interrupted: partial results)');
  });

  it('compare calls an interrupted input not comparable (exit 5, naming it and why); history keeps it, flagged, out of the trend', async () => {
    const nights = join(scratch, 'nights');
    const complete = join(nights, '1-complete');
    expect(stampede(['run', 'test/fixtures/cli/small.yaml', '--out', complete, '--quiet']).status).toBe(0);
    const refused = stampede(['compare', out, complete]);
    expect(refused.status).toBe(5);
    expect(refused.stdout).toMatch(/^# compare: not comparable \(baseline INVALID, interrupted\)/);
    expect(refused.stdout).toContain('- the baseline `qualify` is no evidence: interrupted after 1 complete step');
    expect(stampede(['compare', complete, out]).status).toBe(5);

    const cut = join(nights, '2-cut');
    const run = start([...HOUR_RUN, '--out', cut]);
    await until(logGrown(cut), 'the run to be under way');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    const cutCompare = stampede(['compare', complete, cut]);
    expect(cutCompare.status).toBe(5);
    expect(cutCompare.stdout).toContain('- the candidate `2-cut` is no evidence: interrupted: its figures are partial');
    // The latest night is INVALID: history's badge says so, and an unattended job hears it (exit 1).
    const history = stampede(['history', nights]);
    expect(history.status).toBe(1);
    expect(history.stdout).toContain('- latest night of');
    expect(history.stdout).toContain('1 run(s) not comparable (INVALID or interrupted): compared with nothing, left out of the charts');
    expect(history.stdout).toMatch(/\| 2-cut\s+\| INVALID \(\*\*interrupted\*\*\) \|/);
  });
});

describe('stampede sweep, interrupted', { timeout: 120_000 }, () => {
  it('on SIGTERM stops its worker threads and prints the grid it has, marked partial (exit 143)', async () => {
    // Points of an hour of virtual time each: none finishes before the signal.
    const sweep = start(['sweep', 'profiles/hotos-retry.yaml', '--vary', 'phases[0].rate=150,700', '--set', 'phases[0].duration=1h', '--parallel', '2']);
    await until(() => sweep.output.stderr.includes('sweep: running the grid'), 'the sweep to start');
    sweep.child.kill('SIGTERM');
    expect(await sweep.exited).toBe(143);
    expect(sweep.output.stdout).toMatch(/^PARTIAL: interrupted after \d of 2 points/);
  });
});
