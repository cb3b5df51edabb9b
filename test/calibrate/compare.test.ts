import { describe, expect, it } from 'vitest';
import { calibrationVerdict, kneeOf, kneeRow, loadRow, p99At, worstChurn } from '../../src/calibrate/compare.ts';
import type { CurvePoint } from '../../src/calibrate/types.ts';

const curve = (points: [number, number][]): CurvePoint[] => points.map(([rps, p99Us]) => ({ rps, p99Us }));
const service = curve([
  [100, 2000],
  [200, 2200],
  [400, 3000],
  [600, 8000],
]);
const capacity = { realRps: 600, modelRps: 600, coreRps: 900 };

describe('p99 at a rate', () => {
  it('is the step’s own at a step, read on the log line between two steps, and the nearest step outside them', () => {
    expect(p99At(service, 400)).toEqual({ p99Us: 3000, from: 'step', stepsRps: [400] });
    // Halfway between 400 and 600 on a log scale: the geometric mean of 3000 and 8000.
    expect(p99At(service, 500)).toEqual({ p99Us: Math.round(Math.sqrt(3000 * 8000)), from: 'interpolated', stepsRps: [400, 600] });
    expect(p99At(service, 50)).toEqual({ p99Us: 2000, from: 'nearest step', stepsRps: [100] });
    expect(p99At(service, 900)).toEqual({ p99Us: 8000, from: 'nearest step', stepsRps: [600] });
  });
});

describe('the knee of a curve', () => {
  it('is where p99 passes twice the lowest step’s, read between the steps around the turn', () => {
    const knee = kneeOf(service)!;
    expect(knee.betweenRps).toEqual([400, 600]);
    expect(knee.baseP99Us).toBe(2000);
    // log(4000) between log(3000) at 400 and log(8000) at 600.
    expect(knee.rps).toBe(Math.round(400 + (200 * Math.log(4000 / 3000)) / Math.log(8000 / 3000)));
  });

  it('is absent when p99 never doubled', () => {
    expect(
      kneeOf(
        curve([
          [100, 2000],
          [200, 3000],
        ]),
      ),
    ).toBeUndefined();
    expect(kneeOf([])).toBeUndefined();
  });
});

describe('the verdict', () => {
  it('is met when the knee is within 25% and p99 at 0.8× within 30%, whatever the other rows say', () => {
    const model = curve([
      [100, 2000],
      [200, 2300],
      [400, 3200],
      [600, 9000],
    ]);
    const knee = kneeRow(service, model, {});
    const rows = [loadRow(0.5, 300, service, model), loadRow(0.8, 480, service, model), loadRow(1, 600, service, model)];
    const verdict = calibrationVerdict(knee, rows, capacity);
    expect(Math.abs(knee.difference!)).toBeLessThan(0.25);
    expect(verdict).toEqual({ met: true, disagreements: [] });
  });

  it('fails and says by how much when p99 at 0.8× is off; rows beyond the target elsewhere are named but do not fail it', () => {
    const model = curve([
      [100, 1000],
      [200, 1100],
      [400, 1500],
      [600, 4000],
    ]);
    const knee = kneeRow(service, model, {});
    const rows = [loadRow(0.5, 300, service, model), loadRow(0.8, 480, service, model), loadRow(1, 600, service, model)];
    const verdict = calibrationVerdict(knee, rows, capacity);
    expect(verdict.met).toBe(false);
    expect(verdict.disagreements).toEqual([
      'p99 at 0.5× capacity (300 rps): model 1.28ms vs service 2.57ms (−50%, not a target)',
      'p99 at 0.8× capacity (480 rps): model 2.22ms vs service 4.44ms (−50%, target ±30%)',
      'p99 at 1.0× capacity (600 rps): model 4ms vs service 8ms (−50%, not a target)',
    ]);
  });

  it('cannot be met without a knee on both sides, and says a starved service was starved', () => {
    const flat = curve([
      [100, 2000],
      [600, 2100],
    ]);
    const verdict = calibrationVerdict(kneeRow(service, flat, {}), [loadRow(0.8, 480, service, flat)], { realRps: 300, modelRps: 800, coreRps: 1500 });
    expect(verdict.met).toBe(false);
    expect(verdict.disagreements[0]).toMatch(/^capacity: the service saturated at 300 rps, under 50% of the 1500 rps/);
    expect(verdict.disagreements[1]).toMatch(/^knee: the model did not turn/);
  });

  it('names pool churn as what starved the service when a step’s pool dialled over 50 connections a second', () => {
    const steps = [
      { askedRps: 1000, durationMs: 10_000, service: { connectionsOpened: 30 } },
      { askedRps: 1500, durationMs: 10_000, service: { connectionsOpened: 2_900 } },
      { askedRps: 1400, durationMs: 10_000, service: { connectionsOpened: 12_900 } },
      { askedRps: 1300, durationMs: 10_000 },
    ];
    // The counters cover the 3 s warm-up as well.
    const churn = worstChurn(steps, 100, 3000);
    expect(churn).toEqual({ rps: 1400, opened: 12_900, seconds: 13, idleCap: 100 });
    const flat = curve([
      [100, 2000],
      [1500, 2100],
    ]);
    const verdict = calibrationVerdict(kneeRow(service, flat, {}), [], { realRps: 1340, modelRps: 3400, coreRps: 4000, churn });
    expect(verdict.disagreements[0]).toContain('its memcached pool churned — at 1400 rps it dialled 12900 connections in 13 s (idle cap 100');
    // A pool that only grew (under 50 dials a second) is not churn.
    expect(worstChurn(steps.slice(0, 1), 100, 3000)).toBeUndefined();
  });
});
