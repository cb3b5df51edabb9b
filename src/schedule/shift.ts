import type { Profile } from '../profile/types.ts';
import type { TimelineEvent } from '../profile/topology/index.ts';
import { clip } from './rate-curve.ts';
import type { RateSegment } from './types.ts';

type ShiftEvent = Extract<TimelineEvent, { type: 'shift' }>;

/** The timeline's `shift` events: traffic that moves between profile clients. */
export function shiftEvents(profile: Profile): ShiftEvent[] {
  return (profile.topology?.timeline ?? []).filter((e): e is ShiftEvent => e.type === 'shift');
}

/**
 * Moves `fraction` of one client's asked rate to another from `at` to `until` (run time, warm-up
 * included): the source's curve is scaled down there and the destination's gains the same mass,
 * so the total asked rate is unchanged and the moved requests carry the destination's mix and sizes.
 */
export function applyShifts<C extends { spec: { name: string }; segments: RateSegment[] }>(clients: C[], shifts: readonly ShiftEvent[], endUs: number): C[] {
  let out = clients;
  for (const shift of shifts) {
    const from = out.find((c) => c.spec.name === shift.from);
    const to = out.find((c) => c.spec.name === shift.to);
    if (!from || !to || from === to) continue;
    const until = Math.min(shift.until ?? endUs, endUs);
    const moved = scaled(clip(from.segments, shift.at, until), shift.fraction);
    const kept = [
      ...clip(from.segments, Number.NEGATIVE_INFINITY, shift.at),
      ...scaled(clip(from.segments, shift.at, until), 1 - shift.fraction),
      ...clip(from.segments, until, Number.POSITIVE_INFINITY),
    ];
    out = out.map((c) => (c === from ? { ...c, segments: kept } : c === to ? { ...c, segments: addCurves(c.segments, moved) } : c));
  }
  return out;
}

function scaled(segments: RateSegment[], factor: number): RateSegment[] {
  return segments.map((s) => ({ ...s, fromRps: s.fromRps * factor, toRps: s.toRps * factor }));
}

/** The sum of two piecewise-linear curves: cut at every corner of either, rates added where either covers. */
export function addCurves(a: readonly RateSegment[], b: readonly RateSegment[]): RateSegment[] {
  const corners = [...new Set([...a, ...b].flatMap((s) => [s.startUs, s.endUs]))].sort((x, y) => x - y);
  const out: RateSegment[] = [];
  for (let i = 0; i + 1 < corners.length; i++) {
    const startUs = corners[i]!;
    const endUs = corners[i + 1]!;
    const parts = [...a, ...b].filter((s) => s.startUs <= startUs && s.endUs >= endUs && s.endUs > s.startUs);
    if (parts.length === 0) continue;
    const at = (s: RateSegment, t: number) => s.fromRps + ((s.toRps - s.fromRps) * (t - s.startUs)) / (s.endUs - s.startUs);
    out.push({ startUs, endUs, fromRps: parts.reduce((sum, s) => sum + at(s, startUs), 0), toRps: parts.reduce((sum, s) => sum + at(s, endUs), 0) });
  }
  return out;
}
