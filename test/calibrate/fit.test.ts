import { describe, expect, it } from 'vitest';
import { CalibrationInputError } from '../../src/calibrate/errors.ts';
import { fitService } from '../../src/calibrate/fit.ts';
import type { RealQualification } from '../../src/calibrate/real-qualification.ts';
import type { RealStep, ServiceCounters } from '../../src/calibrate/types.ts';
import type { Qualification } from '../../src/analysis/qualification.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { encodeIntoCompressedBase64, newHistogram } from '../../src/recorder/histograms.ts';

function step(askedRps: number, pass: boolean, service: ServiceCounters | undefined, latency = { p50: 2000, p99: 6000 }): RealStep {
  return {
    askedRps,
    achievedRps: askedRps,
    pass,
    failedChecks: [],
    latencyUs: { ...latency, p999: latency.p99, max: latency.p99 },
    meanUs: latency.p50,
    requests: 1000,
    failed: 0,
    errorRate: 0,
    generatorLimited: false,
    durationMs: 5000,
    dir: `steps/${askedRps}`,
    ...(service && { service }),
  };
}

async function qualification(steps: RealStep[]): Promise<RealQualification> {
  const profile = await loadProfile('profiles/reference-calibration.yaml');
  return {
    dir: 'q',
    qualification: { knee: { rps: 200, p99Us: 6000, turnedAtRps: 400 }, capacityRps: 200, steps } as unknown as Qualification,
    profile,
    steps,
    settings: { limit: 'inf', storeDelayUs: 1000, poolMaxOpen: 512, poolMaxIdle: 100, checkoutTimeoutUs: 100_000, operationTimeoutUs: 500_000 },
  };
}

describe('fitting the service', () => {
  it('reads the CPU per request from the passing steps’ busy time (the utilisation law), per URI from their lookups', async () => {
    const steps = [
      step(100, true, { requests: 500, lookups: 5000, hits: 3000, misses: 2000, eventLoopActiveUs: 100_000 }),
      step(200, true, { requests: 1500, lookups: 15_000, hits: 12_000, misses: 3000, eventLoopActiveUs: 300_000 }),
      // Past capacity the loop also spends time failing requests: not used.
      step(400, false, { requests: 2000, lookups: 20_000, hits: 20_000, misses: 0, eventLoopActiveUs: 2_000_000 }),
    ];
    const fit = fitService(await qualification(steps), 30);
    expect(fit.demandUs).toBe(200); // 400 ms busy over 2,000 requests
    expect(fit.coreCapacityRps).toBe(5000);
    expect(fit.demandFrom).toBe('event-loop busy time');
    expect(fit.lookupsPerRequest).toBe(10);
    expect(fit.itemTimeUs).toBe(20);
    expect(fit.hitRatio).toBe(0.75);
    expect(fit.warmKeys).toBeGreaterThan(0);
    expect(fit.memcached).toEqual({ getUs: 30, from: 'the topology (no --memcached-run)' });
    // Little's law at the knee: 200 rps × 2 ms mean latency.
    expect(fit.inFlightAtKnee).toEqual({ rps: 200, requests: 0.4 });
    // Steps without a histogram: the lowest step's own figures.
    expect(fit.lowLoad).toEqual({ rps: 100, stepsRps: [100], p50Us: 2000, p99Us: 6000, quantilesUs: [2000] });
    expect(fit).toMatchObject({ callerConnections: 32, callerPipelining: 1, callerTimeoutUs: 5_000_000 });
  });

  it('reads the demand from the process’s CPU time when every step used reports it (busy time misses the kernel’s share)', async () => {
    const steps = [
      step(100, true, { requests: 500, lookups: 5000, hits: 3000, misses: 2000, eventLoopActiveUs: 100_000, cpuUs: 180_000 }),
      step(200, true, { requests: 1500, lookups: 15_000, hits: 12_000, misses: 3000, eventLoopActiveUs: 300_000, cpuUs: 620_000 }),
    ];
    const fit = fitService(await qualification(steps), 30);
    expect(fit.demandUs).toBe(400); // 800 ms of CPU over 2,000 requests
    expect(fit.demandFrom).toBe('process CPU time');
    expect(fit.coreCapacityRps).toBe(2500);
    expect(fit.itemTimeUs).toBe(40);
    // One step without it: every step falls back to the busy time, never a mix of the two.
    const mixed = fitService(await qualification([steps[0]!, step(200, true, { requests: 1500, lookups: 15_000, hits: 12_000, misses: 3000, eventLoopActiveUs: 300_000 })]), 30);
    expect(mixed.demandFrom).toBe('event-loop busy time');
    expect(mixed.demandUs).toBe(200);
  });

  it('fits the low load to every step whose CPU kept the core at most a quarter busy, their latencies added up', async () => {
    const histogram = (valueUs: number, count: number) => {
      const h = newHistogram();
      h.recordValueWithCount(valueUs, count);
      return encodeIntoCompressedBase64(h);
    };
    const counters = (requests: number) => ({ requests, lookups: requests * 10, hits: requests, misses: 0, eventLoopActiveUs: requests * 200 });
    // 200 µs per request: a quarter of the core is 1,250 rps, so the 2,000 rps step is not low load.
    const steps = [
      { ...step(100, true, counters(500)), latencyHistogram: histogram(3000, 100) },
      { ...step(200, true, counters(1000)), latencyHistogram: histogram(1000, 300) },
      { ...step(2000, true, counters(10_000)), latencyHistogram: histogram(9000, 1000) },
    ];
    const { lowLoad } = fitService(await qualification(steps), 30);
    expect(lowLoad.rps).toBe(100);
    expect(lowLoad.stepsRps).toEqual([100, 200]);
    expect(lowLoad.p50Us).toBeGreaterThanOrEqual(1000);
    expect(lowLoad.p50Us).toBeLessThan(1010);
    expect(lowLoad.quantilesUs).toHaveLength(100);
    // Three quarters of the pooled requests took 1 ms, a quarter 3 ms; none of the busy step's 9 ms.
    expect(lowLoad.quantilesUs.filter((q) => q < 1010)).toHaveLength(75);
    expect(lowLoad.quantilesUs.filter((q) => q >= 3000 && q < 3010)).toHaveLength(25);
  });

  it('fits GC pauses per URI and their mean, by kind, when every step used reports them', async () => {
    const gc = (minor: number, major: number) => ({ minorPauses: minor, minorPauseUs: minor * 2000, majorPauses: major, majorPauseUs: major * 10_000 });
    const steps = [
      step(100, true, { requests: 500, lookups: 5000, hits: 5000, misses: 0, eventLoopActiveUs: 100_000, gc: gc(2, 0) }),
      step(200, true, { requests: 1500, lookups: 15_000, hits: 15_000, misses: 0, eventLoopActiveUs: 300_000, gc: gc(8, 1) }),
    ];
    const fit = fitService(await qualification(steps), 30);
    // 10 minor pauses of 2 ms and 1 major of 10 ms over 20,000 URIs.
    expect(fit.pauses).toEqual({ minor: { perItem: 10 / 20_000, meanUs: 2000 }, major: { perItem: 1 / 20_000, meanUs: 10_000 } });
    // A step without them: no pauses rather than a guess.
    const without = fitService(await qualification([steps[0]!, step(200, true, { requests: 1500, lookups: 15_000, hits: 15_000, misses: 0, eventLoopActiveUs: 300_000 })]), 30);
    expect(without.pauses).toBeUndefined();
  });

  it('refuses steps without the service’s counters (not the reference service, or no statsPath)', async () => {
    const real = await qualification([step(100, true, undefined)]);
    expect(() => fitService(real, 30)).toThrow(CalibrationInputError);
  });
});
