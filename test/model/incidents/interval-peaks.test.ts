import { describe, expect, it } from 'vitest';
import { gaugeCatalog, peakKey } from '../../../src/recorder/gauges.ts';
import { rehearse, SEEDS, series } from './support.ts';

/**
 * Gauges are sampled once per interval; a peak between two samples used to vanish (bluesky's
 * threads: thousands just before an OOM kill, back to the base count at the next sample). Each
 * point-sampled gauge of a service has a `…Max` beside it: its most at any moment of the interval.
 */
describe('per-interval maxima beside the point samples', () => {
  it.each(SEEDS)('seed %i (bluesky-oom-spiral): threadsMax shows the pre-kill thread peak the 1 s samples miss', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse('bluesky-oom-spiral', seed);
    const process = (run.details.services['dataplane'] as unknown as { process: { threadsHighWater: number; memoryHighWaterMb: number } }).process;
    const peaks = series(run, 'threadsMax.dataplane');
    const samples = series(run, 'threads.dataplane');
    expect(Math.max(...peaks)).toBeGreaterThanOrEqual(process.threadsHighWater);
    expect(Math.max(...samples)).toBeLessThan(process.threadsHighWater / 2);
    expect(Math.max(...series(run, 'memoryMbMax.dataplane'))).toBeGreaterThanOrEqual(Math.floor(process.memoryHighWaterMb));
    peaks.forEach((peak, i) => expect(peak).toBeGreaterThanOrEqual(samples[i]!));
    // What a report reads for the peak of threads (and of every sampled gauge with a maximum).
    const catalog = gaugeCatalog(run.report.gauges ?? []);
    expect(peakKey(catalog, 'threads.dataplane')).toBe('threadsMax.dataplane');
    expect(peakKey(catalog, 'memoryMb.dataplane')).toBe('memoryMbMax.dataplane');
    expect(peakKey(catalog, 'inFlight')).toBe('inFlightMax');
  });

  it.each(SEEDS)(
    'seed %i (black-friday): queue and worker peaks are never below the samples, inFlightMax ≥ inFlight, and the peaks reach the run’s high-water mark',
    { timeout: 60_000 },
    async (seed) => {
      const run = await rehearse('black-friday', seed, ['phases[0].duration=90s']);
      for (const [max, sample] of [
        ['busyWorkersMax.frontend', 'busyWorkers.frontend'],
        ['queueDepthMax.scheduling', 'queueDepth.scheduling'],
        ['inFlightMax', 'inFlight'],
      ] as const) {
        const peaks = series(run, max);
        series(run, sample).forEach((value, i) => expect(peaks[i]).toBeGreaterThanOrEqual(value));
      }
      // The interval peaks together are the run's high-water mark.
      expect(Math.max(...series(run, 'queueDepthMax.scheduling'))).toBe(run.details.services['scheduling']!.queueHighWater);
    },
  );
});
