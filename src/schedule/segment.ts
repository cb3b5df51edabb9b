import type { Schedule, ScheduledRequest } from './types.ts';

/**
 * One of `count` disjoint slices of a schedule (k6's execution segments, by request order): the
 * requests whose seq ≡ index (mod count). Every slice draws the whole seeded schedule and keeps its
 * own requests, so the union of a profile's `count` segments is exactly its unsplit schedule, and
 * each segment's requests keep their intended times, keys and kinds.
 */
export interface Segment {
  index: number;
  count: number;
}

export const WHOLE: Segment = { index: 0, count: 1 };

/** `inner` of `outer`: worker w of W inside segment i of N is segment i + w·N of N·W. */
export function subSegment(outer: Segment, inner: Segment): Segment {
  return { index: outer.index + inner.index * outer.count, count: outer.count * inner.count };
}

/** The schedule's requests of `segment` only; the plan (and so the expected totals) stays the whole run's. */
export function segmentSchedule(schedule: Schedule, segment: Segment): Schedule {
  if (segment.count === 1) return schedule;
  return {
    plan: schedule.plan,
    segment,
    next(into: ScheduledRequest): boolean {
      while (schedule.next(into)) if (into.seq % segment.count === segment.index) return true;
      return false;
    },
  };
}
