import { describe, expect, it } from 'vitest';
import { analyseCapacity, capacitySpread, findKnee, findLimit, judgeRates, passesAboveFails } from '../../src/analysis/capacity.ts';
import { nextStep, type SearchMove, type SearchOptions } from '../../src/qualify/search.ts';
import type { StepOutcome } from '../../src/analysis/qualification.ts';
import { qualificationVerdict } from '../../src/analysis/qualification-verdict.ts';

const OPTIONS: SearchOptions = { startRps: 1000, growth: 2, resolution: 0.05, maxSteps: 20, minRps: 10, repeats: 2 };

/** The rate of the next step, or undefined when the search is done. */
const nextRate = (steps: readonly StepOutcome[], options: SearchOptions) => {
  const move = nextStep(steps, options);
  return 'rps' in move ? move.rps : undefined;
};

/** The whole search against `measure` (the n-th step at a rate is its n-th run there). */
function search(measure: (rps: number, nth: number) => StepOutcome, options: SearchOptions = OPTIONS): { steps: StepOutcome[]; stop: string } {
  const steps: StepOutcome[] = [];
  let move: SearchMove;
  for (move = nextStep(steps, options); 'rps' in move; move = nextStep(steps, options)) {
    const nth = steps.filter((s) => s.askedRps === (move as { rps: number }).rps).length;
    steps.push({ ...measure(move.rps, nth), purpose: move.purpose, ...(move.rerunOf !== undefined && { rerunOf: move.rerunOf }) });
  }
  return { steps, stop: move.stop };
}

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

  it('stops at maxSteps, saying so', () => {
    expect(nextStep([step(1000, 1000, true)], { ...OPTIONS, maxSteps: 1 })).toEqual({ stop: 'the search used its 1 steps (--max-steps) before it was done' });
  });

  it('repeats the two rates that decide the capacity, and only those, then says why it stopped', () => {
    const { steps, stop } = search((r) => target(r));
    const pass = analyseCapacity(steps, 2000).capacityRps;
    const fail = Math.min(...steps.filter((s) => !s.pass).map((s) => s.askedRps));
    const runs = (rate: number) => steps.filter((s) => s.askedRps === rate).length;
    expect([runs(pass), runs(fail)]).toEqual([2, 2]);
    expect(steps.filter((s) => s.purpose === 'repeat').map((s) => s.askedRps)).toEqual([pass, fail]);
    expect(new Set(steps.filter((s) => s.askedRps !== pass && s.askedRps !== fail).map((s) => runs(s.askedRps)))).toEqual(new Set([1]));
    expect(stop).toBe(`the bracket ${pass}–${fail} rps is within the resolution (5%) and its rates ran 2× each`);
    expect(capacitySpread(steps)).toEqual({ series: 2, lowRps: pass, highRps: pass, share: 0 });
  });

  it('searches down from a first step above capacity, then bisects up to the knee', () => {
    // 300 rps of capacity, first step 1,000: down by growth² to 250, then up.
    const { steps } = search((r) => step(r, 5000, r <= 300));
    expect(steps.slice(0, 3).map((s) => [s.askedRps, s.purpose])).toEqual([
      [1000, 'start'],
      [250, 'down'],
      [625, 'bisect'],
    ]);
    const capacity = analyseCapacity(steps, 200).capacityRps;
    expect(capacity).toBeGreaterThan(300 * 0.95);
    expect(capacity).toBeLessThanOrEqual(300);
  });

  it('a rate the generator limited is a ceiling, not the end: the search bisects below it', () => {
    // The target holds everything; the generator falls short from 3,000 rps.
    const { steps, stop } = search((r) => step(r, 5000, true, { generatorLimited: r >= 3000 }));
    const capacity = analyseCapacity(steps, 2000).capacityRps;
    expect(capacity).toBeGreaterThan(3000 * 0.95);
    expect(capacity).toBeLessThan(3000);
    expect(findLimit(steps)).toMatchObject({ by: 'generator' });
    // The generator's ceiling is not repeated: it says nothing about the target.
    expect(steps.filter((s) => s.generatorLimited).every((s) => s.purpose !== 'repeat')).toBe(true);
    expect(stop).toMatch(/the generator limited the fail/);
    // A step the generator limited is re-run once; limited again, even a first step searches down.
    const limited = step(1000, 5000, false, { generatorLimited: true });
    expect(nextStep([limited], OPTIONS)).toEqual({ rps: 1000, purpose: 'rerun', rerunOf: 1 });
    expect(nextStep([limited, { ...limited, rerunOf: 1 }], OPTIONS)).toEqual({ rps: 250, purpose: 'down' });
    // A re-run the generator kept up with sets the limited step aside: its verdict counts.
    expect(judgeRates([limited, step(1000, 5000, true, { rerunOf: 1 })])).toEqual([{ rps: 1000, steps: [2], setAside: [1], pass: true, generatorLimited: false }]);
  });

  it('judges a rate by all its repeats: a failing repeat of the pass moves the bracket down and the bisection resumes', () => {
    // 3,000 rps passed once, fails on its repeat: the capacity falls below it.
    const { steps } = search((r, nth) => step(r, 5000, r < 3000 || (r === 3000 && nth === 0)));
    const rate3000 = judgeRates(steps).find((r) => r.rps === 3000)!;
    expect(rate3000.pass).toBe(false);
    expect(rate3000.steps.length).toBe(2);
    expect(steps.find((s) => s.askedRps === 3000 && s.purpose === 'repeat')).toBeDefined();
    expect(steps.at(-1)!.askedRps).toBeLessThan(3000);
    expect(analyseCapacity(steps, 2000).capacityRps).toBeGreaterThan(3000 * 0.95 * 0.95);
    expect(analyseCapacity(steps, 2000).capacityRps).toBeLessThan(3000);
  });

  it('re-runs a failing step spoiled by one interval: a passing re-run sets it aside, a failing one counts with it', () => {
    const spoiledBy = { tMs: 4000, spanMs: 1000, detail: 'p99 1s there; the other 9 intervals met the SLO' };
    const spoiled = step(2000, 900_000, false, { spoiledBy });
    expect(nextStep([step(1000, 5000, true), spoiled], OPTIONS)).toEqual({ rps: 2000, purpose: 'rerun', rerunOf: 2 });
    const passed = [step(1000, 5000, true), spoiled, step(2000, 5000, true, { rerunOf: 2 })];
    expect(judgeRates(passed)[1]).toEqual({ rps: 2000, steps: [3], setAside: [2], pass: true, generatorLimited: false });
    expect(nextRate(passed, OPTIONS)).toBe(4000);
    const failed = [step(1000, 5000, true), spoiled, step(2000, 900_000, false, { rerunOf: 2, spoiledBy })];
    expect(judgeRates(failed)[1]).toEqual({ rps: 2000, steps: [2, 3], pass: false, generatorLimited: false });
    // A re-run is re-run no further.
    expect(nextStep(failed, OPTIONS)).toEqual({ rps: 1500, purpose: 'bisect' });
  });

  it('a pass above a fail is found; the capacity stays below the lower failure', () => {
    const steps = [step(1000, 5000, true), step(2000, 90_000, false), step(1500, 5000, true), step(4000, 5000, true)];
    expect(passesAboveFails(steps)).toEqual([{ failRps: 2000, passRps: 4000 }]);
    expect(analyseCapacity(steps, 1000).capacityRps).toBe(1500);
  });

  it('the spread is the capacity of each repeat series, lowest and highest', () => {
    // Series 1: pass 3,000, fail 3,100; series 2 passed 3,100 too (its fail is 3,200's only run).
    const steps = [step(3000, 5000, true), step(3100, 90_000, false), step(3200, 90_000, false), step(3000, 5000, true), step(3100, 5000, true)];
    expect(analyseCapacity(steps, 1000).capacityRps).toBe(3000);
    expect(capacitySpread(steps)).toEqual({ series: 2, lowRps: 3000, highRps: 3100, share: 3100 / 3000 - 1 });
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
