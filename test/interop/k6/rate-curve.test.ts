import { describe, expect, it } from 'vitest';
import { arrivalRateAt, type K6Options, k6Scenarios } from '../../../src/interop/k6/k6-options.ts';
import { loadProfile } from '../../../src/profile/load.ts';
import type { Profile } from '../../../src/profile/types.ts';
import { curveRateAt } from '../../../src/schedule/rate-curve.ts';
import { createSchedule } from '../../../src/schedule/index.ts';
import { makeProfile } from '../../helpers/profile.ts';
import { exported, STOREFRONT, scratchDir } from './helpers.ts';

/*
 * The exported scenarios ask k6 for stampede's rate curve: at every half second of the run, each
 * client group's scenario targets the rate the schedule asks of that client (warm-up, ramps,
 * steps, spikes, multipliers, a client's own start and end), and the scenarios together the total.
 */

const dir = scratchDir();

async function optionsOf(profile: Profile): Promise<K6Options> {
  const { script } = await exported(profile, dir, `${profile.name}.ts`);
  return JSON.parse(JSON.stringify(script.exports.options)) as K6Options;
}

async function expectSameCurve(profile: Profile): Promise<void> {
  const plan = createSchedule(profile).plan;
  const scenarios = k6Scenarios(await optionsOf(profile));
  const byClient = (name: string) => scenarios.filter((s) => (s.config.tags as Record<string, string>).client === name);
  for (let tUs = 0; tUs < plan.totalUs + 2e6; tUs += 500_000) {
    for (const client of plan.clients) expect(arrivalRateAt(byClient(client.name), tUs), `${client.name} at ${tUs / 1e6}s`).toBeCloseTo(curveRateAt(client.segments, tUs), 6);
    const total = plan.clients.reduce((sum, c) => sum + curveRateAt(c.segments, tUs), 0);
    expect(arrivalRateAt(scenarios, tUs)).toBeCloseTo(total, 6);
  }
}

describe('the exported rate curve', () => {
  it('follows the schedule: warm-up, ramp, steady, failover multiplier, spike, per client group', async () => {
    await expectSameCurve(await loadProfile(STOREFRONT, []));
  });

  it('follows steps, a late client at a fractional rate and a client with its own phases and end', async () => {
    const profile = makeProfile({
      name: 'steps-and-clients',
      warmup: '5s',
      phases: [
        { type: 'step', from: 10, to: 40, steps: 4, duration: '20s' },
        { type: 'steady', rate: 25, duration: '10s' },
      ],
      clients: [
        { name: 'main', share: 1 },
        { name: 'trickle', rate: 0.5, start: '7s' },
        { name: 'burst', phases: [{ type: 'ramp', from: 0, to: 33.3, duration: '4s' }], start: '2s', end: '12s' },
      ],
      target: 'http://127.0.0.1:8080',
    });
    await expectSameCurve(profile);
    const scenarios = (await optionsOf(profile)).scenarios as Record<string, Record<string, unknown>>;
    expect(scenarios.trickle).toMatchObject({ executor: 'constant-arrival-rate', rate: 5, timeUnit: '10s', startTime: '12s' });
    expect(scenarios.burst).toMatchObject({ executor: 'ramping-arrival-rate', startTime: '7s' });
  });
});
