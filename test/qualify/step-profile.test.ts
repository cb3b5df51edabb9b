import { describe, expect, it } from 'vitest';
import { sliceShares, stepDurationUs } from '../../src/qualify/qualify.ts';
import { profilePeakRps, stepProfile } from '../../src/qualify/step-profile.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { makeProfile } from '../helpers/profile.ts';

const profile = makeProfile({
  name: 'shape',
  warmup: '5s',
  phases: [
    { type: 'steady', rate: 1000, duration: '30s' },
    { type: 'spike', base: 1000, peak: 4000, rise: '2s', hold: '5s', decay: '3s' },
  ],
  multipliers: [{ at: '10s', until: '20s', factor: 2 }],
  keys: { count: 1000, hot: [{ key: 'viral', start: '30s', rise: '10s', peak: 0.3, hold: '5s', halfLife: '10s' }] },
  clients: [
    { name: 'web', share: 3 },
    { name: 'mobile', share: 1 },
    { name: 'batch', rate: 2, start: '10s' },
    {
      name: 'promo',
      phases: [
        { type: 'steady', rate: 0, duration: '20s' },
        { type: 'steady', rate: 50, duration: '20s' },
      ],
    },
  ],
});

describe('qualification step profiles', () => {
  it('the peak is the busiest moment of the rate curve, without multipliers', () => {
    // The spike's 4,000 (shared) + batch 2 + promo 50.
    expect(profilePeakRps(profile)).toBe(4052);
  });

  it('scales every client by the same factor, holds the shape for the step, drops multipliers', () => {
    const step = stepProfile(profile, 2026, { stepUs: 4_000_000, warmupUs: 1_000_000 });
    expect(step.warmup).toBe(1_000_000);
    expect(step.duration).toBe(4_000_000);
    expect(step.multipliers).toEqual([]);
    const plan = createSchedule(step).plan;
    const rateOf = (name: string) => plan.clients.find((c) => c.name === name)!.expectedRequests / 5;
    expect(rateOf('web')).toBeCloseTo(1500, 6);
    expect(rateOf('mobile')).toBeCloseTo(500, 6);
    expect(rateOf('batch')).toBeCloseTo(1, 6);
    expect(rateOf('promo')).toBeCloseTo(25, 6);
    expect(plan.expectedRequests / 5).toBeCloseTo(2026, 6);
  });

  it('puts hot keys at their peak share from the first measured moment, and records the step in the overrides', () => {
    const step = stepProfile(profile, 1000, { stepUs: 2_000_000, warmupUs: 0 });
    expect(step.keys.hot[0]).toMatchObject({ start: 0, rise: 0, peak: 0.3 });
    expect(step.keys.hot[0]!.halfLife).toBeUndefined();
    expect(step.source.overrides.at(-1)).toBe('qualify: 1000 rps');
    expect(step.source.sha256).not.toBe(profile.source.sha256);
  });
});

describe('step duration', () => {
  const p99 = makeProfile({
    name: 's',
    phases: [{ type: 'steady', rate: 1, duration: '1s' }],
    slo: {
      latency: [
        { percentile: 99, max: '50ms' },
        { percentile: 99.9, max: '90ms' },
      ],
    },
  });

  it('stretches a low-rate step until the highest SLO percentile has 50 samples beyond it, within 30× the step', () => {
    // p99.9 needs 50,000 requests: 10 s at 5,000 rps, 50 s at 1,000 rps, capped at 30 × 5 s.
    expect(stepDurationUs(p99, 10_000, 5_000_000)).toBe(5_000_000);
    expect(stepDurationUs(p99, 1000, 5_000_000)).toBe(50_000_000);
    expect(stepDurationUs(p99, 10, 5_000_000)).toBe(150_000_000);
    expect(stepDurationUs(makeProfile({ name: 'n', phases: [{ type: 'steady', rate: 1, duration: '1s' }] }), 10, 5_000_000)).toBe(5_000_000);
  });

  it('stretches for the rarest slice an SLO check looks at: a kind at 2% needs 50× the requests', () => {
    const rare = makeProfile({
      name: 'k',
      phases: [{ type: 'steady', rate: 1000, duration: '10s' }],
      mix: [
        { kind: 'browse', weight: 98 },
        { kind: 'order', weight: 2 },
      ],
      slo: { latency: [{ percentile: 99, max: '1s', kind: 'order' }] },
    });
    const shares = sliceShares(rare);
    expect(shares.kind('order')).toBeCloseTo(0.02, 3);
    // p99 of orders needs 5,000 orders = 250,000 requests: 250 s at 1,000 rps (under the 30 × 10 s cap).
    expect(stepDurationUs(rare, 1000, 10_000_000, shares)).toBe(250_000_000);
    expect(stepDurationUs(rare, 1000, 10_000_000)).toBe(10_000_000);
  });
});
