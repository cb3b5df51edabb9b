import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/exit-codes.ts';
import { stampede } from '../helpers/cli.ts';
import { readJunit } from '../helpers/junit.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-verdict-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/*
 * The small M/M/8 fixture gives all three verdicts: as written it passes; at 9,000 rps the queue
 * grows without bound (FAIL); a p99.99 limit has < 1 sample beyond it in 8,000 requests (INVALID).
 */
const RUNS = [
  { verdict: 'PASS', set: [] as string[], exit: 0 },
  { verdict: 'FAIL', set: ['phases[0].rate=9000'], exit: 1 },
  { verdict: 'INVALID', set: ['slo.latency[0].percentile=99.99'], exit: 1 },
] as const;

describe('the verdict is the same everywhere: last line, summary.md, exit code, JUnit, step summary', { timeout: 120_000 }, () => {
  it.each(RUNS)('$verdict', ({ verdict, set, exit }) => {
    const out = join(scratch, verdict);
    const junit = join(scratch, 'junit', `${verdict}.xml`);
    const stepSummary = join(scratch, `${verdict}-step-summary.md`);
    const args = ['run', 'test/fixtures/cli/small.yaml', '--out', out, '--junit', junit, ...set.flatMap((s) => ['--set', s])];
    const run = stampede(args, 120_000, { GITHUB_STEP_SUMMARY: stepSummary });
    const analysis = JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8'));
    expect(analysis.verdict).toBe(verdict);

    const last = run.stdout.trim().split('\n').at(-1)!;
    expect(last.startsWith(`${verdict}: `)).toBe(true);
    for (const reason of analysis.reasons as string[]) expect(last).toContain(reason.slice(0, 40));
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary.split('\n')[0]).toBe(`# small: ${verdict}`);
    expect(run.status).toBe(exit);
    expect(run.status).toBe(exitCodeOf(analysis));
    if (analysis.flags.length > 0) expect(summary).toContain(`## Realism flags\n\n- ${analysis.flags[0].severity}: ${analysis.flags[0].title}`);

    const { cases } = readJunit(readFileSync(junit, 'utf8'));
    const verdictCase = cases.find((c) => c.name === 'verdict')!;
    expect(verdictCase.failure !== undefined).toBe(exit !== 0);
    if (verdictCase.failure) expect(verdictCase.failure.type).toBe(verdict);
    const checks = cases.filter((c) => c.classname === 'stampede.small.run.check');
    expect(checks.map((c) => [c.name, c.failure === undefined])).toEqual(analysis.slo.checks.map((c: { name: string; pass: boolean }) => [c.name, c.pass]));
    const flags = cases.filter((c) => c.classname === 'stampede.small.run.realism');
    expect(flags.map((c) => [c.name, c.failure === undefined])).toEqual(
      analysis.flags.map((f: { id: string; scope?: string; severity: string }) => [f.scope ? `${f.id}: ${f.scope}` : f.id, f.severity !== 'invalid']),
    );
    for (const f of flags) expect(f.evidence).toMatch(/^(invalid|warn|info): /);

    const markdown = readFileSync(stepSummary, 'utf8');
    expect(markdown.split('\n')[0]).toBe(`### stampede run small: ${verdict}`);
    expect(markdown).toContain(`- ${analysis.reasons[0]}`);
    expect(markdown).toContain('| latency p50 / p99 / p99.9 |');
  });

  it('appends to $GITHUB_STEP_SUMMARY rather than replacing what earlier steps wrote', () => {
    const stepSummary = join(scratch, 'shared-step-summary.md');
    const before = '## an earlier step\n\nits own summary\n';
    writeFileSync(stepSummary, before);
    const run = stampede(['run', 'test/fixtures/cli/small.yaml', '--out', join(scratch, 'again'), '--quiet'], 120_000, { GITHUB_STEP_SUMMARY: stepSummary });
    expect(run.status).toBe(0);
    const after = readFileSync(stepSummary, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length).split('\n')[0]).toBe('### stampede run small: PASS');
  });
});
