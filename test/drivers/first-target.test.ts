import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, stampedeAsync } from '../helpers/cli.ts';
import { type RunningMemcached, startMemcached } from '../helpers/memcached.ts';

/*
 * The README's "A first real target", run as written against a real memcached: its block's
 * stampede commands, with the memcached the test started on a free port in place of 11211 (and the
 * run's folder in a scratch folder), and what the README says they print.
 */

const README = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The stampede commands of the first ```sh block under "## A first real target", as argv. */
function walkThrough(): string[][] {
  const section = README.slice(README.indexOf('## A first real target'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README.md: no ```sh block under "## A first real target"');
  return block
    .split('\n')
    .filter((line) => line.startsWith('npx stampede '))
    .map((line) => line.replace(/^npx stampede /, '').split(/\s+/));
}

describe('the README’s first real target', () => {
  let memcached: RunningMemcached;
  const scratch = mkdtempSync(join(tmpdir(), 'stampede-first-target-'));
  beforeAll(async () => {
    memcached = await startMemcached();
  });
  afterAll(async () => {
    await memcached?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('validates, then runs the profile against memcached and prints its summary', async () => {
    const commands = walkThrough().map((argv) => argv.map((a) => a.replace('127.0.0.1:11211', memcached.address)));
    expect(commands.map((argv) => argv[0])).toEqual(['validate', 'run']);

    const validate = await stampedeAsync(commands[0]!);
    expect(validate.status, validate.stderr).toBe(0);
    // The plan the README describes: 5,000 req/s for 10 s after a 2 s warm-up; 81% get, 9% getMulti, 10% set.
    expect(validate.stdout).toContain('warm-up 2s · measured 10s · 50000 requests expected in the measured window');
    expect(validate.stdout).toMatch(/\| get +\| +81% \|/);
    expect(validate.stdout).toMatch(/\| getMulti +\| +9% \|/);
    expect(validate.stdout).toMatch(/\| set +\| +10% \|/);

    const out = join(scratch, 'run');
    const run = await stampedeAsync([...commands[1]!, '--out', out]);
    // The verdict is the machine's (a busy one can fail p99 ≤ 20 ms); what it prints is the README's.
    expect([0, 1], run.stderr).toContain(run.status);
    expect(run.stdout).toMatch(/^# user-cache-memcached: (PASS|FAIL|INVALID)\n/);
    expect(run.stdout).toMatch(/\nrequests: \d+ sent of 50000 expected in the measured window \(/);
    expect(run.stdout).toMatch(/\n\| all +\| +\d+ \|/);
    expect(run.stdout).toContain('loopback target');
    expect(run.stdout).toContain('run too short for steady state');
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(result.driver.transport.protocol).toBe('memcached');
    expect(result.driver.transport.hits).toBeGreaterThan(0);
    for (const file of ['result.json', 'latency.hlog', 'report.md', 'report.html']) expect(readFileSync(join(out, file)).length, file).toBeGreaterThan(0);
  }, 120_000);
});
