import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSchedule, emptyRequest } from '../../src/schedule/index.ts';
import type { Schedule } from '../../src/schedule/types.ts';
import { makeProfile } from '../helpers/profile.ts';

function intendedTimes(schedule: Schedule): number[] {
  const slot = emptyRequest();
  const times: number[] = [];
  while (schedule.next(slot)) times.push(slot.intendedAtUs);
  return times;
}

function countIn(times: number[], fromUs: number, toUs: number): number {
  return times.filter((t) => t >= fromUs && t < toUs).length;
}

const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });

describe('arrival process', () => {
  it('Poisson arrivals hit the asked rate within 4 standard deviations, with exponential gaps', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const times = intendedTimes(createSchedule(makeProfile({ name: 'p', seed, phases: [{ type: 'steady', rate: 2000, duration: '50s' }] })));
        const expected = 100_000;
        expect(Math.abs(times.length - expected)).toBeLessThan(4 * Math.sqrt(expected));
        // Exponential gaps have coefficient of variation 1.
        const gaps = times.slice(1).map((t, i) => t - times[i]!);
        const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
        const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length);
        expect(sd / mean).toBeGreaterThan(0.97);
        expect(sd / mean).toBeLessThan(1.03);
      }),
      { numRuns: 5 },
    );
  });

  it('constant arrivals are evenly spaced and exactly rate × duration', () => {
    const times = intendedTimes(createSchedule(makeProfile({ name: 'c', arrivals: 'constant', phases: [{ type: 'steady', rate: 1000, duration: '10s' }] })));
    expect(times.length).toBe(10_000);
    expect(times[0]).toBe(0);
    expect(times[1]).toBe(1000);
    expect(times[9999]).toBe(9_999_000);
  });

  it('times are absolute offsets in non-decreasing order, all inside the run', () => {
    const schedule = createSchedule(makeProfile({ name: 'o', warmup: '2s', phases: [{ type: 'ramp', from: 100, to: 3000, duration: '5s' }] }));
    const times = intendedTimes(schedule);
    times.forEach((t, i) => i > 0 && expect(t).toBeGreaterThanOrEqual(times[i - 1]!));
    expect(times[times.length - 1]).toBeLessThan(schedule.plan.totalUs);
    expect(times[0]).toBeGreaterThanOrEqual(0);
  });

  it('a linear ramp puts the integral of the rate into each window', () => {
    const times = intendedTimes(createSchedule(makeProfile({ name: 'r', arrivals: 'constant', phases: [{ type: 'ramp', from: 0, to: 4000, duration: '10s' }] })));
    // The rate climbs 400 rps per second: ∫0^5 400t dt = 5,000 in the first half, 15,000 in the second.
    expect(countIn(times, 0, 5e6)).toBeCloseTo(5_000, -1);
    expect(countIn(times, 5e6, 10e6)).toBeCloseTo(15_000, -1);
  });

  it('a spike rises, holds and decays; a multiplier scales the rate from its start', () => {
    const schedule = createSchedule(
      makeProfile({
        name: 's',
        arrivals: 'constant',
        phases: [
          { type: 'steady', rate: 1000, duration: '10s' },
          { type: 'spike', base: 1000, peak: 5000, rise: '2s', hold: '5s', decay: '2s', duration: '20s' },
        ],
        multipliers: [{ at: '25s', factor: 2 }],
      }),
    );
    const times = intendedTimes(schedule);
    expect(countIn(times, 0, 10e6)).toBe(10_000);
    expect(countIn(times, 13e6, 17e6)).toBeCloseTo(20_000, -1); // at peak
    expect(countIn(times, 20e6, 25e6)).toBeCloseTo(5_000, -1); // back to base
    expect(countIn(times, 25e6, 30e6)).toBeCloseTo(10_000, -1); // failover doubles the base
    expect(schedule.plan.expectedRequests).toBeCloseTo(times.length, -1);
  });

  it('the warm-up runs at the first phase rate before measuring starts', () => {
    const schedule = createSchedule(makeProfile({ name: 'w', arrivals: 'constant', warmup: '3s', phases: [{ type: 'steady', rate: 500, duration: '4s' }] }));
    const times = intendedTimes(schedule);
    expect(schedule.plan.warmupUs).toBe(3e6);
    expect(countIn(times, 0, 3e6)).toBe(1500);
    expect(times.length).toBe(3500);
  });

  it('a step phase climbs in equal stairs', () => {
    const times = intendedTimes(createSchedule(makeProfile({ name: 'st', arrivals: 'constant', phases: [{ type: 'step', from: 100, to: 400, steps: 4, duration: '8s' }] })));
    expect([0, 2, 4, 6].map((s) => countIn(times, s * 1e6, (s + 2) * 1e6))).toEqual([200, 400, 600, 800]);
  });

  it('a client with its own rate starts and stops on its own clock, beside the share clients', () => {
    const schedule = createSchedule(
      makeProfile({
        name: 'cl',
        arrivals: 'constant',
        phases: [{ type: 'steady', rate: 1000, duration: '10s' }],
        clients: [
          { name: 'web', share: 3 },
          { name: 'app', share: 1 },
          { name: 'batcher', rate: 2, start: '4s', end: '9s' },
        ],
      }),
    );
    const slot = emptyRequest();
    const perClient = [0, 0, 0];
    let firstBatchAt = -1;
    while (schedule.next(slot)) {
      perClient[slot.client]!++;
      if (slot.client === 2 && firstBatchAt < 0) firstBatchAt = slot.intendedAtUs;
    }
    expect(perClient).toEqual([7500, 2500, 10]);
    expect(firstBatchAt).toBe(4e6);
  });
});
