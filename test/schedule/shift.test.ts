import { describe, expect, it } from 'vitest';
import { createSchedule } from '../../src/schedule/index.ts';
import { segmentMass } from '../../src/schedule/rate-curve.ts';
import { addCurves } from '../../src/schedule/shift.ts';
import { emptyRequest } from '../../src/schedule/types.ts';
import { MINIMAL_TOPOLOGY, makeProfile } from '../helpers/profile.ts';

/** Two data centres' clients sharing 1,000 rps, 3:1, for 10 s; `timeline` on the topology. */
function profile(timeline: unknown[]) {
  return makeProfile({
    name: 'dcs',
    arrivals: 'constant',
    phases: [{ type: 'steady', rate: 1000, duration: '10s' }],
    clients: [
      { name: 'east', share: 3, mix: [{ kind: 'home', weight: 1 }] },
      { name: 'west', share: 1, mix: [{ kind: 'feed', weight: 1 }] },
    ],
    topology: { ...MINIMAL_TOPOLOGY, timeline },
  } as never);
}

const mass = (segments: { startUs: number; endUs: number; fromRps: number; toRps: number }[]) => segments.reduce((m, s) => m + segmentMass(s), 0);

describe('shift', () => {
  it('moves a fraction of one client’s rate to another for its window; the total is unchanged', () => {
    const plain = createSchedule(profile([])).plan;
    const shifted = createSchedule(profile([{ type: 'shift', at: '4s', until: '6s', from: 'west', to: 'east', fraction: 1 }])).plan;
    const [east, west] = shifted.clients;
    expect(mass(west!.segments)).toBeCloseTo(250 * 8);
    expect(mass(east!.segments)).toBeCloseTo(750 * 10 + 250 * 2);
    expect(shifted.expectedRequests).toBeCloseTo(plain.expectedRequests);
    expect(east!.segments.find((s) => s.startUs === 4_000_000)).toMatchObject({ endUs: 6_000_000, fromRps: 1000, toRps: 1000 });
  });

  it('the moved requests are the destination’s: its name and its mix', () => {
    const schedule = createSchedule(profile([{ type: 'shift', at: '2s', from: 'west', to: 'east', fraction: 0.5 }]));
    const kinds = schedule.plan.kinds;
    const request = emptyRequest();
    const seen = { before: { west: 0, feedFromEast: 0 }, after: { west: 0, feedFromEast: 0 } };
    while (schedule.next(request)) {
      const part = request.intendedAtUs < 2_000_000 ? seen.before : seen.after;
      const client = schedule.plan.clients[request.client]!.name;
      if (client === 'west') part.west++;
      if (client === 'east' && kinds[request.kind] === 'feed') part.feedFromEast++;
    }
    expect(seen.before.west).toBe(500);
    expect(seen.after.west).toBe(1000);
    expect(seen.after.feedFromEast).toBe(0);
  });

  it('adds two piecewise-linear curves corner by corner', () => {
    const sum = addCurves([{ startUs: 0, endUs: 10, fromRps: 0, toRps: 10 }], [{ startUs: 5, endUs: 15, fromRps: 2, toRps: 2 }]);
    expect(sum).toEqual([
      { startUs: 0, endUs: 5, fromRps: 0, toRps: 5 },
      { startUs: 5, endUs: 10, fromRps: 7, toRps: 12 },
      { startUs: 10, endUs: 15, fromRps: 2, toRps: 2 },
    ]);
  });
});
