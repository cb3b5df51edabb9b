import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATENCY_BOUNDS_US, latencyBuckets } from '../../src/pipeline/live.ts';
import { JsHistogram } from 'hdr-histogram-js';
import { newHistogram, type Histogram } from '../../src/recorder/histograms.ts';

/** The same figures read the slow, obvious way: HDR's own recorded-values iterator and mean. */
function byIterator(h: Histogram): { cumulative: number[]; sumUs: number } {
  const cumulative = LATENCY_BOUNDS_US.map(() => 0);
  if (!(h instanceof JsHistogram)) throw new Error('a JsHistogram');
  const values = h.recordedValuesIterator;
  values.reset();
  while (values.hasNext()) {
    const step = values.next();
    LATENCY_BOUNDS_US.forEach((bound, b) => {
      if (step.valueIteratedTo <= bound) cumulative[b]! += step.countAddedInThisIterationStep;
    });
  }
  return { cumulative, sumUs: h.totalCount > 0 ? h.mean * h.totalCount : 0 };
}

describe('live latency buckets', () => {
  it('count what HDR’s iterator counts under each bound, and sum what its mean sums', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20_000_000 }), { maxLength: 400 }), fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 400 }), (wide, narrow) => {
        const h = newHistogram();
        for (const v of [...wide, ...narrow]) h.recordValue(v);
        const live = latencyBuckets(h);
        const expected = byIterator(h);
        expect(live.count).toBe(h.totalCount);
        expect(live.cumulative).toEqual(expected.cumulative);
        expect(live.sumUs).toBeCloseTo(expected.sumUs, 3);
      }),
      { numRuns: 200 },
    );
  });

  it('put a value exactly on a bound under that bound', () => {
    const h = newHistogram();
    h.recordValue(1000);
    h.recordValue(1001);
    const live = latencyBuckets(h);
    expect(live.cumulative[LATENCY_BOUNDS_US.indexOf(1000)]).toBe(1);
    expect(live.cumulative.at(-1)).toBe(2);
  });
});
