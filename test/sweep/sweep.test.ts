import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gridPoints, parseAxis } from '../../src/sweep/grid.ts';
import { renderSweep, sweep } from '../../src/sweep/sweep.ts';

const profile = join(import.meta.dirname, '../../profiles/hotos-retry.yaml');

describe('sweep grid', () => {
  it('a..b gives evenly spaced values with their unit; a list gives those values', () => {
    expect(parseAxis('phases[0].rate=100..900', 5)).toEqual({ path: 'phases[0].rate', numbers: [100, 300, 500, 700, 900], values: ['100', '300', '500', '700', '900'] });
    expect(parseAxis('topology.timeline[0].for=5s..15s', 3).values).toEqual(['5s', '10s', '15s']);
    expect(parseAxis('x=lifo,fifo', 5).values).toEqual(['lifo', 'fifo']);
    expect(() => parseAxis('nothing', 3)).toThrow();
  });

  it('two axes make every combination, the first varying slowest', () => {
    expect(gridPoints([parseAxis('a=1,2', 0), parseAxis('b=x,y,z', 0)])).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
      [1, 2],
    ]);
  });
});

describe('stampede sweep on the HotOS retry example', () => {
  it('finds the vulnerable region and the hidden capacity (1,000/s ÷ 4 attempts = 250/s), on worker threads', { timeout: 60_000 }, async () => {
    const r = await sweep({ profilePath: profile, vary: ['phases[0].rate=150,700'], set: [], steps: 5, windowS: [70, 90], parallel: 2 });
    expect(r.points.map((p) => p.result.verdict)).toEqual(['recovered', 'failed']);
    expect(r.hiddenCapacity).toEqual([{ column: null, value: 150 }]);
    expect(r.vulnerable).toEqual([{ column: null, values: ['700'] }]);
    expect(renderSweep(r)).toContain('recovers up to 150 (hidden capacity); vulnerable: 700');
  });

  it('"before the trigger" is the success of requests started before the dip at 20 s, not the first fifth of the run', { timeout: 60_000 }, async () => {
    // A 20 s run longer: the first fifth (22 s) would reach past the dip into the failure.
    const r = await sweep({ profilePath: profile, vary: ['phases[0].rate=700'], set: ['phases[0].duration=110s'], steps: 2, windowS: [90, 110], parallel: 1 });
    const point = r.points[0]!.result;
    expect(point.triggerS).toBe(20);
    expect(point.before).toBe(1);
    expect(point.verdict).toBe('failed');
    expect(renderSweep(r)).toContain('(before the trigger at 20 s: 100.0%)');
  });

  it('a point is a pure function of its inputs: the same in a worker and in this thread', { timeout: 60_000 }, async () => {
    const args = {
      profilePath: profile,
      vary: ['phases[0].rate=700', 'topology.services.api.queue.discipline=fifo,lifo'],
      set: ['phases[0].duration=60s'],
      steps: 2,
      windowS: [45, 60] as [number, number],
    };
    const inWorkers = await sweep({ ...args, parallel: 2 });
    const here = await sweep({ ...args, parallel: 1 });
    expect(inWorkers.points.map((p) => p.result.success)).toEqual(here.points.map((p) => p.result.success));
    // FIFO stays failed at 700/s; LIFO recovers: the mitigation, as a second axis.
    expect(here.points.map((p) => p.result.verdict)).toEqual(['failed', 'recovered']);
  });
});

describe('a sweep stopped by a signal', () => {
  it('keeps the points it finished, marks the result partial, and says so first', { timeout: 60_000 }, async () => {
    const abort = new AbortController();
    // The first point finishes; the signal arrives as it does, so the second never starts.
    const r = await sweep({
      profilePath: profile,
      vary: ['phases[0].rate=150,700'],
      set: [],
      steps: 2,
      windowS: [70, 90],
      parallel: 1,
      signal: abort.signal,
      onPoint: () => abort.abort(),
    });
    expect(r.partial).toBe(true);
    expect(r.gridPoints).toBe(2);
    expect(r.points.map((p) => p.result.verdict)).toEqual(['recovered']);
    expect(r.hiddenCapacity).toEqual([{ column: null, value: 150 }]);
    expect(r.vulnerable).toEqual([{ column: null, values: [] }]);
    expect(renderSweep(r).split('\n')[0]).toBe('PARTIAL: interrupted after 1 of 2 points; the findings cover only the points run');
  });
});
