import { ProfileError } from '../profile/index.ts';
import { roundTo } from '../profile/units.ts';

/** One swept parameter: the `--set` path and the values it takes, as written (units kept). */
export interface Axis {
  path: string;
  values: string[];
  /** The values as numbers (unit stripped), for ordering and for the hidden-capacity figure. */
  numbers: number[];
}

const RANGE = /^(-?\d+(?:\.\d+)?)([a-z%]*)\.\.(-?\d+(?:\.\d+)?)([a-z%]*)$/i;
const NUMBER = /^(-?\d+(?:\.\d+)?)([a-z%]*)$/i;

/**
 * Parses `--vary path=a..b` (`steps` evenly spaced values from a to b, both included; a unit
 * suffix such as `s` or `ms` is kept: `for=5s..15s`) or `--vary path=v1,v2,v3` (those values).
 */
export function parseAxis(spec: string, steps: number): Axis {
  const eq = spec.indexOf('=');
  const fail = (message: string): never => {
    throw new ProfileError('<command line>', [
      { file: '<command line>', line: 0, column: 0, path: '--vary', message, hint: 'e.g. --vary phases[0].rate=100..900 or --vary topology.timeline[0].for=5s,10s,15s' },
    ]);
  };
  if (eq <= 0) fail(`expected path=a..b or path=v1,v2, got "${spec}"`);
  const path = spec.slice(0, eq).trim();
  const text = spec.slice(eq + 1).trim();
  const range = RANGE.exec(text);
  if (range) {
    const [, a, unitA, b, unitB] = range;
    if ((unitA || unitB) && unitA !== unitB && unitA !== '' && unitB !== '') fail(`the two ends of "${text}" have different units`);
    const unit = unitA || unitB || '';
    const from = Number(a);
    const to = Number(b);
    if (steps < 2) fail('--steps must be at least 2');
    const numbers = Array.from({ length: steps }, (_, i) => roundTo(from + ((to - from) * i) / (steps - 1), 6));
    return { path, numbers, values: numbers.map((n) => `${n}${unit}`) };
  }
  const values = text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  if (values.length === 0) fail(`no values in "${text}"`);
  const numbers = values.map((v, i) => {
    const m = NUMBER.exec(v);
    return m ? Number(m[1]) : i;
  });
  return { path, values, numbers };
}

/** Every combination of the axes' values (the first axis varies slowest). */
export function gridPoints(axes: Axis[]): number[][] {
  let points: number[][] = [[]];
  for (const axis of axes) points = points.flatMap((p) => axis.values.map((_, i) => [...p, i]));
  return points;
}
