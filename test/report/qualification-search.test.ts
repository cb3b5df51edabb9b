import { describe, expect, it } from 'vitest';
import { analyseCapacity, bracketOf, judgeRates } from '../../src/analysis/capacity.ts';
import { QUALIFICATION_SCHEMA, type Qualification, type StepOutcome } from '../../src/analysis/qualification.ts';
import { searchFlags } from '../../src/analysis/realism/search-flags.ts';
import { junitXml, qualificationOutcome, stepSummary } from '../../src/report/ci.ts';
import { renderQualificationReport } from '../../src/report/qualification-report.ts';
import { junitSchemaErrors, readJunit } from '../helpers/junit.ts';

function step(askedRps: number, pass: boolean, extra: Partial<StepOutcome> = {}): StepOutcome {
  return {
    askedRps,
    achievedRps: askedRps,
    pass,
    failedChecks: pass ? [] : ['p99 ≤ 50ms'],
    latencyUs: { p50: 2000, p99: pass ? 20_000 : 90_000, p999: 100_000, max: 200_000 },
    requests: 10_000,
    failed: 0,
    errorRate: 0,
    generatorLimited: false,
    durationMs: 5000,
    dir: '',
    purpose: 'bisect',
    ...extra,
  };
}

/** A qualification of these steps, its search summary and flags as qualify() builds them. */
function qualificationOf(steps: StepOutcome[], stopped: string): Qualification {
  const rates = judgeRates(steps);
  const { pass, fail, failedBy } = bracketOf(rates);
  const search = { repeats: 2, resolution: 0.05, maxSteps: 16, bracket: { passRps: pass, failRps: fail, failedBy }, rates, stopped };
  return {
    schema: QUALIFICATION_SCHEMA,
    profile: { name: 'svc', description: 'a service', file: 'svc.yaml', sha256: '0'.repeat(64), overrides: [] },
    target: 'http://127.0.0.1:8080',
    seed: 1,
    ...analyseCapacity(steps, 1000),
    peakSource: 'production.peakRps',
    step: { durationMs: 5000, warmupMs: 1000 },
    steps,
    search,
    interrupted: false,
    verdict: 'PASS',
    reasons: ['capacity 1500 rps', `the search stopped: ${stopped}`],
    flags: searchFlags(steps, search),
    startedAt: '2026-01-01T00:00:00.000Z',
    wall: { finishedAt: '2026-01-01T00:00:00.000Z', elapsedMs: 0 },
  };
}

const spoiledBy = { tMs: 3000, spanMs: 1000, detail: 'p99 600ms there; the other 4 intervals met the SLO' };
// 1,000 passes; 2,000 fails; 1,500 passes twice; 1,750 is spoiled, re-run, and fails on its repeat; 2,500 passes (above the fail).
const STEPS = [
  step(1000, true, { purpose: 'start' }),
  step(2000, false, { purpose: 'grow' }),
  step(1500, true),
  step(1750, false, { spoiledBy }),
  step(1750, true, { purpose: 'rerun', rerunOf: 4 }),
  step(1500, true, { purpose: 'repeat' }),
  step(1750, false, { purpose: 'repeat' }),
  step(2500, true, { purpose: 'grow' }),
];
const STOPPED = 'the bracket 1500–1750 rps is within the resolution (5%) and its rates ran 2× each';

describe('a qualification’s search in its report and its JUnit', () => {
  const q = qualificationOf(STEPS, STOPPED);

  it('judges the rates: the spoiled step set aside, the repeat that failed counts, the pass above the fail flagged', () => {
    expect(q.capacityRps).toBe(1500);
    expect(q.search!.rates.find((r) => r.rps === 1750)).toEqual({ rps: 1750, steps: [5, 7], setAside: [4], pass: false, generatorLimited: false });
    // Series 1 (steps 1, 3, 5, 2, 8): 1,750 passed, 2,000 failed; series 2 (1, 6, 7, 2, 8): 1,750 failed.
    expect(q.spread).toEqual({ series: 2, lowRps: 1500, highRps: 1750, share: 1750 / 1500 - 1 });
    expect(q.flags.map((f) => f.id)).toEqual(['pass-above-fail', 'spoiled-step']);
    expect(q.flags[0]!.evidence).toBe('2500 rps passed (step 8) above 1750 rps, which failed (steps 5, 7): the capacity is taken below the lower failure');
    expect(q.flags[1]!.evidence).toBe(
      'step 4 at 1750 rps: spoiled by one interval at t=3s (1s: p99 600ms there; the other 4 intervals met the SLO); re-run as step 5, which passed: set aside',
    );
  });

  it('the report: spread, bracket, why it stopped, each step’s purpose and the spoiled step', () => {
    const md = renderQualificationReport(q);
    expect(md).toMatch(/\| spread over repeats\s+\| 1500–1750 rps over 2 repeat series \(\+17%; the capacity is the lowest\)/);
    expect(md).toMatch(/\| bracket \(decides the capacity\)\s+\| passes 1500 rps \(steps 3, 6\); fails 1750 rps \(steps 5, 7, by the target\)/);
    expect(md).toContain(`| search stopped                  | ${STOPPED}`);
    expect(md).toMatch(/\|\s+5 \|\s+1750 \| re-run of 4 \|/);
    expect(md).toContain('FAIL: p99 ≤ 50ms; spoiled by one interval at t=3s (p99 600ms there; the other 4 intervals met the SLO); set aside: its re-run passed');
    expect(md).toContain('pass-above-fail');
    // The knee reads each rate by its worst repeat: 1,750's failing repeat turns it, after 1,500.
    expect(q.knee).toEqual({ rps: 1500, p99Us: 20_000, turnedAtRps: 1750 });
  });

  it('JUnit: the figures as properties, the capacity check with its spread, each step by its rate, each search flag a case', async () => {
    const outcome = qualificationOutcome(q, 'out');
    const xml = junitXml(outcome, 'ci-runner-7');
    expect(await junitSchemaErrors(xml)).toEqual([]);
    const junit = readJunit(xml);
    expect([junit.hostname, junit.timestamp]).toEqual(['ci-runner-7', '2026-01-01T00:00:00']);
    expect(junit.properties.bracket).toBe('1500 rps passes, 1750 rps fails (the target)');
    expect(junit.systemOut).toContain(
      `capacity spread: 1500–1750 rps over 2 repeat series (17%)\nbracket: 1500 rps passes, 1750 rps fails (the target)\nsearch stopped: ${STOPPED}`,
    );
    const cases = new Map(junit.cases.map((c) => [c.name, c]));
    expect(cases.get('capacity covers the expected peak')?.evidence).toBe('pass: capacity 1500 rps (2 repeats: 1500–1750 rps) vs expected peak 1000 rps (production.peakRps)');
    expect(junit.cases.filter((c) => c.classname === 'stampede.svc.qualification.step').map((c) => c.name)).toEqual([
      'step 1000 rps',
      'step 2000 rps',
      'step 1500 rps',
      'step 1750 rps',
      'step 1750 rps #2',
      'step 1500 rps #2',
      'step 1750 rps #3',
      'step 2500 rps',
    ]);
    expect(cases.get('step 1750 rps')?.evidence).toBe('bisect: achieved 1750 rps, p99 90ms, errors 0%: the SLO broke (p99 ≤ 50ms) ()');
    expect([...cases.keys()]).toEqual(expect.arrayContaining(['pass-above-fail', 'spoiled-step: step 1750 rps']));
    expect(junit.cases.filter((c) => c.failure !== undefined)).toEqual([]);
    expect(stepSummary(outcome)).toContain('| bracket         | 1500 rps passes, 1750 rps fails (the target)');
  });

  it('JUnit: an interrupted step is skipped; characters XML cannot hold are dropped; a name given twice is numbered', async () => {
    const cut = qualificationOf([...STEPS.slice(0, 3), step(1750, false, { interrupted: true })], 'interrupted');
    const outcome = qualificationOutcome({ ...cut, interrupted: true, verdict: 'INVALID', reasons: ['interrupted \u0007 by \u001b[1mSIGINT'] }, 'out');
    outcome.checks.push({ ...outcome.checks[0]!, pass: false });
    const xml = junitXml(outcome, 'h');
    expect(await junitSchemaErrors(xml)).toEqual([]);
    const junit = readJunit(xml);
    const byName = new Map(junit.cases.map((c) => [c.name, c]));
    expect(byName.get('step 1750 rps')?.skipped).toBe('interrupted: not judged');
    expect(junit.skipped).toBe(1);
    expect(byName.get('verdict')?.failure?.message).toBe('INVALID: interrupted  by [1mSIGINT');
    expect(byName.get('capacity covers the expected peak #2')?.failure?.type).toBe('check');
  });

  it('a file from before repeats renders as before: no search rows', () => {
    const { search: _search, spread: _spread, ...old } = q;
    const md = renderQualificationReport({ ...old, steps: old.steps.map(({ purpose: _p, rerunOf: _r, spoiledBy: _s, ...s }) => s) });
    expect(md).not.toMatch(/\| (spread over repeats|bracket \(decides|search stopped)/);
    expect(md).toMatch(/\| step \| asked rps \| why \|/);
  });

  it('a deciding rate the search had no steps left to repeat is flagged', () => {
    const short = qualificationOf(
      [step(1000, true, { purpose: 'start' }), step(1500, false, { purpose: 'grow' }), step(1250, true)],
      'the search used its 3 steps (--max-steps) before it was done',
    );
    expect(short.flags.map((f) => [f.id, f.evidence])).toEqual([
      ['bracket-unrepeated', '1250 rps ran 1× of 2; 1500 rps ran 1× of 2: the search used its 3 steps (--max-steps) before it was done'],
    ]);
  });
});

describe('who was the limit, step by step', () => {
  it('names the generator’s own reasons for a step it limited and the target’s saturation for a step whose pool was full', () => {
    const saturation =
      'the target saturated at this concurrency: 9,000 requests waited for a free connection (connections × pipelining = 32, all busy; 32 on the wire on average by Little’s law); it answered 400 rps of 800 asked; send lateness p99 4s';
    const steps = [
      step(500, true),
      step(800, false, { targetSaturation: saturation }),
      step(650, false, { generatorLimited: true, generatorReasons: ['schedule slipped: dispatch lateness p99 12ms > 10ms'] }),
    ];
    const report = renderQualificationReport(qualificationOf(steps, 'bracket within resolution'));
    expect(report).toContain(`- step 2 (800 rps): ${saturation}`);
    expect(report).toContain('- step 3 (650 rps): the generator was the limit: schedule slipped: dispatch lateness p99 12ms > 10ms');
    expect(renderQualificationReport(qualificationOf([step(500, true), step(800, false)], 'bracket within resolution'))).not.toContain('Who was the limit, step by step');
  });
});
