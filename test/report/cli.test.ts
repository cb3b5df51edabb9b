import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';
import { readJunit } from '../helpers/junit.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-report-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('stampede run writes the reports; stampede report re-renders them without traffic', { timeout: 60_000 }, () => {
  it('report.md and report.html sit next to result.json and come back byte for byte', () => {
    const out = join(scratch, 'run');
    expect(stampede(['run', 'test/fixtures/cli/small.yaml', '--out', out, '--quiet']).status).toBe(0);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(md.split('\n')[0]).toBe('# small: PASS');
    expect(md).toContain('## Realism flags');
    unlinkSync(join(out, 'report.md'));
    unlinkSync(join(out, 'report.html'));
    const again = stampede(['report', out]);
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toBe(md);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toBe(html);
    expect(stampede(['report', out, '--print']).stdout).toBe(md);
  });

  it('run --production-sample: the run report compares the test with the sample, and re-renders the same', () => {
    const sample = join(scratch, 'run-sample.csv');
    writeFileSync(sample, ['value', ...Array.from({ length: 500 }, (_, i) => String(i % 2 === 0 ? 2000 : 40_000))].join('\n'));
    const out = join(scratch, 'sampled');
    expect(stampede(['run', 'test/fixtures/cli/small.yaml', '--out', out, '--quiet', '--production-sample', sample]).status).toBe(0);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/value-size .*p50 100 B vs 2 KB in production; p99 100 B vs 40 KB in production/);
    unlinkSync(join(out, 'report.md'));
    stampede(['report', out]);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toBe(md);
  });

  it('report on a folder without artifacts exits 2', () => {
    const run = stampede(['report', `${scratch}/nothing-here`]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/no result\.json or qualification\.json/);
  });
});

describe('stampede lint', { timeout: 60_000 }, () => {
  it('lists the flags knowable before a run, and exits 0 when none is invalid', () => {
    const run = stampede(['lint', 'profiles/viral-hot-key.yaml']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^# viral-hot-key: realism flags before a run/);
    expect(run.stdout).toMatch(/\| warn\s+\| retries-timeouts/);
  });

  it('exits 1 when a flag already makes the run invalid (p99.9 from a 2,000-request run)', () => {
    const run = stampede(['lint', 'test/fixtures/cli/small.yaml', '--set', 'phases[0].duration=500ms', '--set', 'slo.latency=[{percentile: 99.9, max: 50ms}]']);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/\*\*INVALID\*\* \| too-few-samples/);
  });

  it('derives production: from a sample CSV and compares the profile with it', () => {
    const sample = join(scratch, 'sample.csv');
    writeFileSync(sample, ['key,batch', ...Array.from({ length: 1000 }, (_, i) => `k${i % 50},${i === 7 ? 18000 : 20}`)].join('\n'));
    const run = stampede(['lint', 'test/fixtures/cli/small.yaml', '--production-sample', sample]);
    expect(run.stdout).toMatch(/batch-tail .*largest batch the test sends: 1 keys; production: 18,000/);
  });
});

describe('stampede qualify (CLI)', { timeout: 120_000 }, () => {
  it('steps the rate, writes qualification.json, report.md and report.html, and exits 0 on PASS / 1 on FAIL', () => {
    const out = join(scratch, 'qualify');
    const run = stampede([
      'qualify',
      'test/fixtures/cli/small.yaml',
      '--out',
      out,
      '--step',
      '1s',
      '--warmup',
      '0',
      '--max-steps',
      '4',
      '--set',
      'production={peakRps: 2000, dataCentres: 2}',
      '--junit',
      join(out, 'junit.xml'),
    ]);
    expect(run.stderr).toMatch(/^step 1: 1000 rps/);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/^# small qualification: (PASS|FAIL|INVALID)/);
    expect(md).toMatch(/failover load \(N\+1\)\s+\| 4000 rps/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<svg');
    const q = JSON.parse(readFileSync(join(out, 'qualification.json'), 'utf8'));
    expect(q.steps.length).toBe(4);
    expect(run.status).toBe(q.verdict === 'PASS' ? 0 : 1);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(new RegExp(`^${q.verdict}: (capacity|no step held)`));
    // JUnit: the verdict and the capacity checks as test cases, read back with an XML parser.
    const junit = readJunit(readFileSync(join(out, 'junit.xml'), 'utf8'));
    const { cases } = junit;
    expect(cases.slice(0, 3).map((c) => c.name)).toEqual(['verdict', 'capacity covers the expected peak', 'failover (N+1, 2 DCs)']);
    expect(cases[0]!.failure === undefined).toBe(q.verdict === 'PASS');
    expect(cases[2]!.failure === undefined).toBe(q.failover.pass);
    expect(cases.length).toBe(3 + q.steps.length + q.flags.length);
    // The search's figures ride in the suite's properties and system-out; four steps cannot repeat a bracket, and the flag says so.
    expect(junit.properties['search stopped']).toBe(q.search.stopped);
    expect(junit.systemOut).toMatch(/\nsearch stopped: /);
    expect(md).toMatch(/\| search stopped\s+\| /);
    expect(q.search.repeats).toBe(2);
    // Re-rendered from qualification.json alone.
    unlinkSync(join(out, 'report.md'));
    expect(stampede(['report', out]).status).toBe(0);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toBe(md);
  });
});
