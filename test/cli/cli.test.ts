import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HistogramLogReader } from '../../src/recorder/histograms.ts';
import { CLI_ENTRY, repoRoot, stampede } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function resultWithoutWall(dir: string): string {
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
  delete result.startedAt;
  delete result.wall;
  return JSON.stringify(result);
}

describe('stampede run (real CLI, model target)', () => {
  it('writes result.json, latency.hlog and summary.md, and exits 0 when the SLO holds', () => {
    const out = join(scratch, 'a');
    const run = stampede(['run', 'test/fixtures/cli/small.yaml', '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('# small: PASS');
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(result.schema).toBe('stampede.result/3');
    expect(JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8')).verdict).toBe('PASS');
    expect(result.profile.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.requests.sent).toBe(result.requests.ok + result.requests.failed + result.requests.inFlightAtEnd);
    // 2 s at 4,000 rps, Poisson: within 4 standard deviations of 8,000.
    expect(Math.abs(result.requests.sent - 8000)).toBeLessThan(4 * Math.sqrt(8000));
    expect(result.latencyUs.p50).toBeGreaterThan(0);
    expect(result.intervals.series.length).toBeGreaterThanOrEqual(3);
    expect(result.intervals.series[0].gauges).toHaveProperty('inFlight');
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toBe(run.stdout.split('\nwritten to ')[0]);
    const log = new HistogramLogReader(readFileSync(join(out, 'latency.hlog'), 'utf8'));
    let logged = 0;
    // The untagged lines and the warm-up's hold every completion; the per-kind lines repeat the measured ones.
    for (let h = log.nextIntervalHistogram(); h; h = log.nextIntervalHistogram()) if (!h.tag.startsWith('kind:')) logged += h.totalCount;
    expect(logged).toBe(result.requests.ok + result.requests.failed + result.requests.warmup);
  });

  it('gives a byte-identical result.json for the same seed, apart from startedAt and wall-clock times', () => {
    const first = join(scratch, 'same-1');
    const second = join(scratch, 'same-2');
    expect(stampede(['run', 'test/fixtures/cli/small.yaml', '--out', first, '--quiet']).status).toBe(0);
    expect(stampede(['run', 'test/fixtures/cli/small.yaml', '--out', second, '--quiet']).status).toBe(0);
    expect(resultWithoutWall(first)).toBe(resultWithoutWall(second));
    const other = join(scratch, 'other-seed');
    stampede(['run', 'test/fixtures/cli/small.yaml', '--out', other, '--seed', '43', '--quiet']);
    expect(resultWithoutWall(other)).not.toBe(resultWithoutWall(first));
  });

  it('exits 1 when the SLO fails, and --set changes the profile', () => {
    const out = join(scratch, 'overloaded');
    // 9,000 rps against 8 workers of 1 ms: utilisation above 1, the queue grows without bound.
    const run = stampede(['run', 'test/fixtures/cli/small.yaml', '--out', out, '--set', 'phases[0].rate=9000']);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('FAIL');
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(result.profile.overrides).toEqual(['phases[0].rate=9000']);
    const analysis = JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8'));
    expect(analysis.slo.pass).toBe(false);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(new RegExp(`^${analysis.verdict}: p99 ≤ 50ms: measured`));
  });

  it('rejects a broken profile with exit 2, naming file, line and field for every problem, without a stack trace', () => {
    const run = stampede(['run', 'test/fixtures/cli/broken.yaml']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/broken\.yaml:1:\d+\s+name/);
    expect(run.stderr).toMatch(/broken\.yaml:4:\d+\s+phases\[0\]\.rate/);
    expect(run.stderr).toMatch(/broken\.yaml:5:\d+\s+phases\[1\]\.type/);
    expect(run.stderr).toMatch(/broken\.yaml:6:\d+\s+phases\[2\]/);
    expect(run.stderr).toMatch(/hint:/);
    expect(run.stderr).not.toMatch(/\n\s+at .*\.ts:\d+/);
  });

  it('refuses --workers on the model as bad input (exit 2), before writing anything', () => {
    const out = join(scratch, 'x');
    const run = stampede(['run', 'test/fixtures/cli/small.yaml', '--workers', '2', '--out', out]);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('stampede: --workers: applies to real targets; the model runs in virtual time on one thread (drop --workers, or give --target)\n');
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    ['gopher://127.0.0.1:1', 'unknown scheme "gopher"'],
    ['http://127.0.0.1:99999', 'port 99999 is out of range'],
    ['memcached://', 'no servers'],
  ])('rejects --target %s as bad input (exit 2), naming the option', (target, problem) => {
    const out = join(scratch, 'bad-target');
    const run = stampede(['run', 'test/fixtures/cli/small.yaml', '--target', target, '--out', out]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--target');
    expect(run.stderr).toContain(problem);
    expect(existsSync(out)).toBe(false);
  });

  it('rejects an unknown option with exit 2 and one line naming it, before any traffic or output folder', () => {
    const out = join(scratch, 'unknown-option');
    const run = stampede(['run', 'test/fixtures/cli/small.yaml', '--rate', '5', '--out', out]);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('stampede: unknown option --rate (see stampede run --help)\n');
    expect(run.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });
});

describe('stampede run, interrupted', () => {
  it('on SIGINT stops, writes what it measured, and exits 130', async () => {
    const out = join(scratch, 'interrupted');
    // An hour of virtual traffic: far longer than the test waits.
    const child = spawn(process.execPath, [CLI_ENTRY, 'run', 'test/fixtures/cli/small.yaml', '--out', out, '--set', 'phases[0].duration=1h'], { cwd: repoRoot });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    // Interrupt once the run is under way: a few intervals are in the log (startup time varies with machine load).
    const log = join(out, 'latency.hlog');
    for (let waited = 0; waited < 60_000 && !(existsSync(log) && statSync(log).size > 20_000); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGINT');
    const status = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    expect(status).toBe(130);
    expect(stdout).toContain('interrupted: partial results');
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(result.interrupted).toBe(true);
    expect(result.requests.sent).toBeGreaterThan(1000);
    expect(result.requests.sent).toBeLessThan(result.requests.expected);
    expect(result.requests.sent).toBe(result.requests.ok + result.requests.failed + result.requests.inFlightAtEnd);
  });
});

describe('stampede validate and schema', () => {
  it('validate prints the resolved plan with phases, expected requests and mix', () => {
    const run = stampede(['validate', 'test/fixtures/cli/small.yaml', '--set', 'mix=[{kind: get, weight: 3}, {kind: set, weight: 1}]']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('small: valid');
    expect(run.stdout).toMatch(/steady 4000 rps/);
    expect(run.stdout).toMatch(/8000 requests expected in the measured window \(\+ 2000 during the warm-up\)/);
    expect(run.stdout).toMatch(/\| get\s+\|\s+75%/);
  });

  it('schema prints a JSON Schema with the profile fields and their descriptions', () => {
    const run = stampede(['schema']);
    expect(run.status).toBe(0);
    const schema = JSON.parse(run.stdout);
    expect(schema.$schema).toContain('json-schema.org');
    expect(schema.properties.phases.items).toBeDefined();
    expect(JSON.stringify(schema)).toContain('Zipf exponent');
  });

  it('--version prints the package version', () => {
    const run = stampede(['--version']);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
  });

  it('an unknown command is a usage error (exit 2)', () => {
    expect(stampede(['fly']).status).toBe(2);
  });
});
