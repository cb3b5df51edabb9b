import { describe, expect, it } from 'vitest';
import { createSchedule, emptyRequest } from '../../src/schedule/index.ts';
import { segmentSchedule, subSegment } from '../../src/schedule/segment.ts';
import { makeProfile } from '../helpers/profile.ts';

const profile = makeProfile({
  name: 'segments',
  seed: 7,
  phases: [{ type: 'steady', rate: 3000, duration: '2s' }],
  mix: [
    { kind: 'get', weight: 3 },
    { kind: 'set', weight: 1 },
  ],
} as never);

/** Every request a schedule sends, as [seq, intended time, kind, first key]. */
function drain(schedule: ReturnType<typeof createSchedule>): [number, number, number, number][] {
  const r = emptyRequest();
  const out: [number, number, number, number][] = [];
  while (schedule.next(r)) out.push([r.seq, r.intendedAtUs, r.kind, r.keys[0]!]);
  return out;
}

describe('schedule segments', () => {
  it('are disjoint and their union is exactly the unsplit schedule, request for request', () => {
    const whole = drain(createSchedule(profile));
    const parts = [0, 1, 2].map((index) => drain(segmentSchedule(createSchedule(profile), { index, count: 3 })));
    expect(parts.map((p) => p.length).reduce((a, b) => a + b)).toBe(whole.length);
    const union = parts.flat().sort((a, b) => a[0] - b[0]);
    expect(union).toEqual(whole);
    expect(parts.map((p) => p.every(([seq]) => seq % 3 === parts.indexOf(p)))).toEqual([true, true, true]);
  });

  it('split further by worker threads stay disjoint and complete (segment i of N, worker w of W)', () => {
    const whole = drain(createSchedule(profile)).map(([seq]) => seq);
    const seqs: number[] = [];
    for (let index = 0; index < 2; index++) {
      for (let w = 0; w < 2; w++) {
        const slice = subSegment({ index, count: 2 }, { index: w, count: 2 });
        seqs.push(...whole.filter((seq) => seq % slice.count === slice.index));
      }
    }
    expect(seqs.sort((a, b) => a - b)).toEqual(whole);
  });
});
