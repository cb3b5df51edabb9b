import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runProfile } from '../../src/pipeline/run.ts';
import { loadProfile } from '../../src/profile/load.ts';
import type { IntervalResult } from '../../src/recorder/interval-digest.ts';
import { readIntervalLog } from '../../src/run-folder/index.ts';
import { stampede } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-bounds-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('bounded by design (real CLI)', () => {
  it('refuses a plan over its limits before any traffic or folder: exit 2, the figure, the limit and the override', () => {
    const out = join(scratch, 'refused');
    const run = stampede(['run', 'test/fixtures/cli/small.yaml', '--set', 'phases[0].rate=1e9', '--set', 'phases[0].duration=1s', '--out', out]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('1,500,000,000 requests > limits.maxRequests 100,000,000');
    expect(run.stderr).toContain('Override: --force, or raise limits.maxRequests');
    expect(run.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });

  it('a limits: section tightens the check; --force runs the plan anyway', () => {
    const tight = ['run', 'test/fixtures/cli/small.yaml', '--set', 'limits.maxRequests=100', '--quiet'];
    const refused = stampede([...tight, '--out', join(scratch, 'tight')]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('10,000 requests > limits.maxRequests 100.');
    const forced = stampede([...tight, '--out', join(scratch, 'forced'), '--force']);
    expect(forced.status).toBe(0);
    expect(existsSync(join(scratch, 'forced', 'result.json'))).toBe(true);
  });

  it('validate prints the plan figures and the limit that would refuse it, exit 2', () => {
    const ok = stampede(['validate', 'test/fixtures/cli/small.yaml']);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('## Plan check');
    expect(ok.stdout).toContain('within every limit');
    const over = stampede(['validate', 'test/fixtures/cli/small.yaml', '--set', 'batch=10000000']);
    expect(over.status).toBe(2);
    expect(over.stdout).toContain('run would refuse it: 10,000,000 keys per request > limits.maxBatch 100,000');
  });

  it('qualify is refused before its first step or folder', () => {
    const out = join(scratch, 'qualify-refused');
    const refused = stampede(['qualify', 'test/fixtures/cli/small.yaml', '--set', 'batch=10000000', '--out', out]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('10,000,000 keys per request > limits.maxBatch 100,000');
    expect(existsSync(out)).toBe(false);
  });

  it('sweep --steps 100000 is refused before any point runs', () => {
    const sweep = stampede(['sweep', 'test/fixtures/cli/small.yaml', '--vary', 'phases[0].rate=100..1000', '--steps', '100000']);
    expect(sweep.status).toBe(2);
    // The command line's own bound (at most 100 values an axis) refuses it first; the plan check's maxRuns backs it for library callers.
    expect(sweep.stderr).toContain('--steps: expected a whole number ≥ 2 and ≤ 100, got "100000"');
  });

  it('sweep --window takes bare seconds like every other duration, and refuses a window that ends before it starts', () => {
    const ok = stampede(['sweep', 'test/fixtures/cli/small.yaml', '--vary', 'phases[0].rate=100', '--steps', '2', '--window', '1..2', '--parallel', '1', '--quiet']);
    expect(ok.stderr).not.toContain('--window');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('success of requests started in 1–2 s');
    const bad = stampede(['sweep', 'test/fixtures/cli/small.yaml', '--vary', 'phases[0].rate=100', '--window', '2..1']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--window: expected from..to, got "2..1"');
  });
});

describe('intervals on disk, a bounded summary in result.json', () => {
  it('writes every interval to intervals.jsonl as it closes; result.json keeps the count, the series and gauge statistics', async () => {
    const out = join(scratch, 'run');
    const { result } = await runProfile(await loadProfile('test/fixtures/cli/small.yaml'), { outDir: out, intervalUs: 100_000, reports: false });
    const intervals: IntervalResult[] = [];
    for await (const interval of readIntervalLog(out)) intervals.push(interval);
    expect(intervals.length).toBe(result.intervals.count);
    expect(intervals.map((i) => i.tMs)).toEqual(intervals.map((_, k) => k * 100));
    expect(intervals.reduce((a, i) => a + i.ok, 0)).toBe(result.intervals.series.reduce((a, i) => a + i.ok, 0));
    const stored = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(stored.intervals.file).toBe('intervals.jsonl');
    expect(stored.intervals.gauges.inFlight.max).toBe(Math.max(...intervals.map((i) => i.gauges['inFlight']!)));
    const report = stampede(['report', out]);
    expect(report.status).toBe(0);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('Throughput');
  });
});
