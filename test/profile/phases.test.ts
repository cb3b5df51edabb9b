import { describe, expect, it } from 'vitest';
import { measuredDurationUs, phaseDurationUs, phasesDurationUs } from '../../src/profile/phases.ts';
import type { Phase } from '../../src/profile/schema.ts';

const spike = { type: 'spike', base: 10, peak: 100, rise: 1e6, hold: 2e6, decay: 3e6 } as const;

const ROWS: readonly (readonly [string, Phase, number])[] = [
  ['a steady phase lasts its duration', { type: 'steady', rate: 10, duration: 5e6 }, 5e6],
  ['a ramp lasts its duration', { type: 'ramp', from: 1, to: 10, duration: 7e6 }, 7e6],
  ['a step phase lasts its duration, whatever its steps', { type: 'step', from: 1, to: 10, steps: 3, duration: 9e6 }, 9e6],
  ['a spike given no duration lasts rise + hold + decay', spike, 6e6],
  ['a spike given a duration lasts it (the rest at base)', { ...spike, duration: 10e6 }, 10e6],
];

describe('phase durations', () => {
  it.each(ROWS)('%s', (_, phase, us) => {
    expect(phaseDurationUs(phase)).toBe(us);
  });

  it('phases run one after another: their lengths add up, and are the measured duration unless the profile gives one', () => {
    const phases = ROWS.map(([, phase]) => phase);
    const sum = ROWS.reduce((total, [, , us]) => total + us, 0);

    expect(phasesDurationUs(phases)).toBe(sum);
    expect(measuredDurationUs({ phases })).toBe(sum);
    expect(measuredDurationUs({ phases, duration: 1e6 })).toBe(1e6);
  });
});
