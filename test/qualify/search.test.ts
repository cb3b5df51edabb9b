import { describe, expect, it } from 'vitest';
import { analyseCapacity, findKnee, findLimit } from '../../src/analysis/capacity.ts';
import { nextRate, type SearchOptions } from '../../src/qualify/search.ts';
import type { StepOutcome } from '../../src/analysis/qualification.ts';
import { qualificationVerdict } from '../../src/analysis/qualification-verdict.ts';

const OPTIONS: SearchOptions = { startRps: 1000, growth: 2, resolution: 0.05, maxSteps: 20, minRps: 10 };

function step(askedRps: number, p99Us: number, pass: boolean, extra: Partial<StepOutcome> = {}): StepOutcome {
  return {
    askedRps,
    achievedRps: askedRps,
    pass,
    failedChecks: pass ? [] : ['p99 ≤ 50ms'],
    latencyUs: { p50: p99Us / 5, p99: p99Us, p999: p99Us * 2, max: p99Us * 3 },
    requests: 10_000,
    failed: 0,
    errorRate: 0,
    generatorLimited: false,
    durationMs: 10_000,
    dir: '',
    ...extra,
  };
}

/** A target whose p99 is flat until 3,000 rps, then climbs: the SLO (50 ms) breaks at 3,300. */
const target = (rps: number) => step(rps, rps <= 3000 ? 5000 : 5000 + (rps - 3000) * 150, rps <= 3000 + 300);

describe('rate search', () => {
  it('grows until the SLO breaks, then bisects to the resolution', () => {
    const steps: StepOutcome[] = [];
    for (let r = nextRate(steps, OPTIONS); r !== undefined; r = nextRate(steps, OPTIONS)) steps.push(target(r));
    expect(steps.slice(0, 3).map((s) => s.askedRps)).toEqual([1000, 2000, 4000]);
    const capacity = analyseCapacity(steps, 2000).capacityRps;
    expect(capacity).toBeGreaterThan(3300 * 0.95);
    expect(capacity).toBeLessThanOrEqual(3300);
    expect(steps.length).toBeLessThan(10);
  });

  it('goes down when even the first step fails, and gives up below minRps', () => {
    expect(nextRate([step(1000, 90_000, false)], OPTIONS)).toBe(250);
    expect(nextRate([step(1000, 90_000, false), step(250, 90_000, false), step(62.5, 90_000, false), step(15.6, 90_000, false)], OPTIONS)).toBeUndefined();
  });

  it('stops at maxSteps and when the generator limited a step', () => {
    expect(nextRate([step(1000, 1000, true)], { ...OPTIONS, maxSteps: 1 })).toBeUndefined();
    expect(nextRate([step(1000, 1000, true, { generatorLimited: true })], OPTIONS)).toBeUndefined();
  });
});

describe('capacity analysis', () => {
  const steps = [1000, 2000, 3000, 4000].map(target);

  it('capacity is the highest passing rate below the lowest failing one', () => {
    expect(analyseCapacity([...steps, step(5000, 1000, true)], 2000).capacityRps).toBe(3000);
  });

  it('headroom is against the expected peak; failover (N+1) against peak × N/(N−1)', () => {
    const two = analyseCapacity(steps, 1200, 2);
    expect(two.headroom).toBeCloseTo(3000 / 1200 - 1);
    expect(two.failover).toMatchObject({ dataCentres: 2, demandRps: 2400, pass: true });
    const three = analyseCapacity(steps, 2100, 3);
    expect(three.failover).toMatchObject({ demandRps: 3150, pass: false });
    expect(analyseCapacity(steps, 2100).failover).toBeUndefined();
    expect(analyseCapacity(steps, 2100, 1).failover).toBeUndefined();
  });

  it('the knee is the last rate before p99 doubles over the lightest step', () => {
    expect(findKnee(steps)).toMatchObject({ rps: 3000, turnedAtRps: 4000 });
    expect(findKnee([1000, 2000].map(target))).toBeUndefined();
  });

  it('the limit is the generator when it fell short first, else the first failing step', () => {
    expect(findLimit(steps)).toMatchObject({ by: 'target', rps: 4000 });
    const limited = [step(1000, 1000, true), step(2000, 1000, true, { generatorLimited: true, achievedRps: 1500 }), step(4000, 90_000, false)];
    expect(findLimit(limited)).toMatchObject({ by: 'generator', rps: 2000 });
  });
});

describe('a step cut short (SIGINT, SIGTERM)', () => {
  // The cut step measured a few seconds at 4,000 rps: its p99 and its "failure" are not evidence.
  const cut = step(4000, 900_000, false, { interrupted: true, generatorLimited: true });

  it('is no capacity, no limit and no knee: only complete steps are judged', () => {
    const steps = [step(1000, 5000, true), step(2000, 5000, true), cut];
    const analysis = analyseCapacity(steps, 1500);
    expect(analysis.capacityRps).toBe(2000);
    expect(analysis.limit).toBeUndefined();
    expect(findKnee(steps)).toBeUndefined();
    expect(findLimit(steps)).toBeUndefined();
  });

  it('does not end or steer the search; with no complete step it starts again', () => {
    expect(nextRate([step(1000, 5000, true), cut], OPTIONS)).toBe(2000);
    expect(nextRate([cut], OPTIONS)).toBe(1000);
  });

  it('makes the qualification INVALID, never PASS, and the first reason says why', () => {
    const steps = [step(1000, 5000, true), step(2000, 5000, true), cut];
    const analysis = analyseCapacity(steps, 1500);
    expect(qualificationVerdict(analysis, []).verdict).toBe('PASS');
    const { verdict, reasons } = qualificationVerdict(analysis, [], { completeSteps: 2, cutStepRps: 4000 });
    expect(verdict).toBe('INVALID');
    expect(reasons[0]).toBe(
      'interrupted after 2 complete steps; the step at 4000 rps was cut short and is not judged: the search did not finish, so the figures below come from the complete steps only and a qualification cut short cannot pass',
    );
  });
});
