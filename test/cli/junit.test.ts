import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';
import { type JunitSuite, junitSchemaErrors, readJunit } from '../helpers/junit.ts';

/*
 * JUnit as CI systems read it: every document valid against the Apache Ant JUnit schema (time,
 * timestamp and hostname required), case names unique, and the same from night to night.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-junit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SMALL = 'test/fixtures/cli/small.yaml';

function judged(name: string, args: string[]): { status: number | null; xml: string; junit: JunitSuite; out: string } {
  const out = join(scratch, name);
  const file = join(scratch, `${name}.xml`);
  const run = stampede([...args, '--out', out, '--junit', file, '--quiet']);
  expect(run.stderr).toBe('');
  const xml = readFileSync(file, 'utf8');
  return { status: run.status, xml, junit: readJunit(xml), out };
}

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const keys = (s: JunitSuite) => s.cases.map((c) => `${c.classname} / ${c.name}`);

/** What every stampede JUnit document holds, whatever it judged. */
async function expectReadable(xml: string, suite: JunitSuite, started: { startedAt: string; elapsedMs: number }): Promise<void> {
  expect(await junitSchemaErrors(xml)).toEqual([]);
  expect(suite.timestamp).toBe(started.startedAt.slice(0, 19));
  expect(suite.hostname).toBe(hostname());
  expect(suite.time).toBeCloseTo(started.elapsedMs / 1000, 3);
  expect(new Set(keys(suite)).size).toBe(suite.cases.length);
  expect(suite.tests).toBe(suite.cases.length);
  expect(suite.failures).toBe(suite.cases.filter((c) => c.failure).length);
  for (const c of suite.cases) {
    expect(c.classname.startsWith(`${suite.package}.`)).toBe(true);
    expect(c.evidence).not.toBe('');
  }
}

describe('JUnit of a run', { timeout: 120_000 }, () => {
  it('PASS: valid, timed, every case unique; the same cases on another night (another seed)', async () => {
    const night1 = judged('pass-1', ['run', SMALL, '--seed', '1']);
    const night2 = judged('pass-2', ['run', SMALL, '--seed', '2']);
    expect([night1.status, night2.status]).toEqual([0, 0]);
    const result = json(join(night1.out, 'result.json'));
    await expectReadable(night1.xml, night1.junit, { startedAt: result.startedAt, elapsedMs: result.wall.elapsedMs });
    expect(night1.junit.package).toBe('stampede.small');
    expect(night1.junit.properties.verdict).toBe('PASS');
    const verdict = night1.junit.cases[0]!;
    expect([verdict.classname, verdict.name, verdict.failure]).toEqual(['stampede.small.run', 'verdict', undefined]);
    // The run is the verdict's test: its time is the run's.
    expect(verdict.time).toBeCloseTo(result.wall.elapsedMs / 1000, 3);
    const analysis = json(join(night1.out, 'analysis.json'));
    const checks = night1.junit.cases.filter((c) => c.classname === 'stampede.small.run.check');
    expect(checks.map((c) => c.name)).toEqual(analysis.slo.checks.map((c: { name: string }) => c.name));
    const flags = night1.junit.cases.filter((c) => c.classname === 'stampede.small.run.realism');
    expect(flags.map((c) => c.name)).toEqual(analysis.flags.map((f: { id: string; scope?: string }) => (f.scope ? `${f.id}: ${f.scope}` : f.id)));
    for (const f of flags) expect(f.evidence).toMatch(/^(warn|info): .+\n.+\nfix: .+\nincident: /);
    expect(keys(night2.junit)).toEqual(keys(night1.junit));
    expect(night2.junit.systemOut).not.toBe(night1.junit.systemOut);
  });

  it('FAIL: the verdict and the broken check are failures, with their evidence', async () => {
    const { status, xml, junit, out } = judged('fail', ['run', SMALL, '--set', 'phases[0].rate=9000']);
    expect(status).toBe(1);
    const result = json(join(out, 'result.json'));
    await expectReadable(xml, junit, { startedAt: result.startedAt, elapsedMs: result.wall.elapsedMs });
    const failed = junit.cases.filter((c) => c.failure);
    expect(failed.map((c) => c.name)).toEqual(['verdict', 'p99 ≤ 50ms']);
    expect(failed[0]!.failure).toMatchObject({ type: 'FAIL', message: expect.stringMatching(/^FAIL: p99 /) });
    expect(failed[1]!.failure).toMatchObject({ type: 'check', message: expect.stringMatching(/^measured \S+ > 50ms$/) });
    expect(junit.failures).toBe(2);
  });

  it('a failover rehearsal: each timeline event its recovery case, each cache its hit-ratio case', async () => {
    const { status, xml, junit, out } = judged('failover', ['run', 'profiles/failover-reference.yaml']);
    expect(status).toBe(0);
    const result = json(join(out, 'result.json'));
    await expectReadable(xml, junit, { startedAt: result.startedAt, elapsedMs: result.wall.elapsedMs });
    const recoveries = junit.cases.filter((c) => c.classname === 'stampede.failover-reference.run.recovery');
    expect(recoveries.map((c) => c.name)).toEqual(['recovery after dc-failover: rate ×2', 'recovery after dc-failover ends']);
    for (const c of recoveries) expect(c.evidence).toMatch(/^(stayed inside its limits|recovered in \S+ \(outside: .+\)|did not recover within the run)/);
    // Two caches, two near-perfect hit ratios: one case each, named by the cache.
    expect(junit.cases.filter((c) => c.name.startsWith('hit-ratio')).map((c) => c.name)).toEqual(['hit-ratio: memcached', 'hit-ratio: memcached.hottest']);
  });
});

describe('JUnit of a qualification', { timeout: 120_000 }, () => {
  it('each step a case named by its offered rate (a repeat numbered), timed by the wall clock', async () => {
    const { status, xml, junit, out } = judged('qualify', ['qualify', SMALL, '--step', '1s', '--warmup', '0', '--start', '8000', '--max-steps', '5', '--resolution', '0.3']);
    const q = json(join(out, 'qualification.json'));
    expect(status).toBe(q.verdict === 'PASS' ? 0 : 1);
    await expectReadable(xml, junit, { startedAt: q.startedAt, elapsedMs: q.wall.elapsedMs });
    expect(junit.name).toBe('small qualification');
    const steps = junit.cases.filter((c) => c.classname === 'stampede.small.qualification.step');
    expect(steps.map((c) => c.name)).toEqual(['step 8000 rps', 'step 12000 rps', 'step 10000 rps', 'step 8000 rps #2', 'step 10000 rps #2']);
    // The steps' times add up to about the qualification's (the first also holds the command's setup, the reports come after the last).
    const stepsTime = steps.reduce((sum, c) => sum + c.time, 0);
    expect(stepsTime).toBeGreaterThan(0);
    expect(stepsTime).toBeLessThan(junit.time + 1);
    steps.forEach((c, i) => {
      expect(c.time).toBeGreaterThan(0);
      // Breaking the SLO is what the search looks for: a step is no failure, its evidence says what happened.
      expect(c.failure).toBeUndefined();
      expect(c.evidence).toMatch(q.steps[i].pass ? /: the SLO held \(steps\// : /: the SLO broke \(p99 ≤ 50ms\) \(steps\//);
    });
    expect(junit.properties.capacity).toBe(`${q.capacityRps} rps`);
  });
});
