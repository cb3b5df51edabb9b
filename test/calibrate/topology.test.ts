import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { calibratedTopology, exactMeanUs, NETWORK, topologyYaml } from '../../src/calibrate/calibrated-topology.ts';
import { CalibrationInputError } from '../../src/calibrate/errors.ts';
import type { ServiceFit } from '../../src/calibrate/fit.ts';
import { readTemplate } from '../../src/calibrate/template.ts';
import { warmKeysFor } from '../../src/calibrate/warm-keys.ts';
import { TopologySchema } from '../../src/profile/topology/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-calibrate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const TEMPLATE = 'profiles/topologies/reference-service.yaml';

const fit: ServiceFit = {
  demandUs: 250,
  demandFrom: 'process CPU time',
  coreCapacityRps: 4000,
  lookupsPerRequest: 10,
  itemTimeUs: 25.3,
  cpus: 1,
  inFlightAtKnee: { rps: 1000, requests: 3 },
  hitRatio: 0.8,
  warmKeys: 1234,
  memcached: { getUs: 41, from: 'a test' },
  settings: { limit: 50, storeDelayUs: 2000, poolMaxOpen: 64, poolMaxIdle: 8, checkoutTimeoutUs: 100_000, operationTimeoutUs: 500_000 },
  callerConnections: 16,
  callerPipelining: 1,
  callerTimeoutUs: 5_000_000,
  lowLoad: { rps: 100, stepsRps: [100], p50Us: 1500, p99Us: 4000, quantilesUs: [1500] },
};

describe('the calibrated topology', () => {
  it('writes the fitted figures into the template’s structure, and reads back as the same topology', () => {
    const template = readTemplate(TEMPLATE);
    const { raw, topology } = calibratedTopology(template, { ...fit, networkUs: 300 });
    expect(topology.entry).toBe(NETWORK);
    expect(topology.services[NETWORK]).toMatchObject({ workers: Number.POSITIVE_INFINITY, cpus: Number.POSITIVE_INFINITY, serviceTime: { type: 'fixed', value: 300 } });
    expect(topology.services[NETWORK]!.calls[0]).toMatchObject({ to: 'reference', via: NETWORK });
    const service = topology.services['reference']!;
    expect(service).toMatchObject({ workers: Number.POSITIVE_INFINITY, cpus: 1, serviceTime: { type: 'fixed', value: 0 } });
    expect(service.itemTime).toEqual({
      type: 'empirical',
      values: [
        { value: 25, weight: 0.7 },
        { value: 26, weight: 0.3 },
      ],
    });
    expect(topology.clientGroups['memcache']).toMatchObject({ fanoutLimit: 50, timeout: 500_000, pool: { maxOpen: 64, maxIdle: 8, checkoutTimeout: 100_000 } });
    expect(topology.clientGroups['users']).toMatchObject({ timeout: 5_000_000, pool: { maxOpen: 16, pipelining: 1 } });
    expect(topology.caches['memcached']).toMatchObject({ workers: Number.POSITIVE_INFINITY, warm: true, capacity: 1234, serviceTime: { type: 'fixed', value: 41 } });
    expect(topology.databases['store']!.latency).toEqual({ type: 'fixed', value: 2000 });
    // The file it writes is a topology like any other: YAML, durations spelled as a user writes them.
    const text = topologyYaml(raw, ['fitted by a test']);
    expect(text.startsWith('# fitted by a test\n')).toBe(true);
    expect(text).toContain('timeout: 5s');
    expect(TopologySchema.parse(parse(text))).toEqual(topology);
  });

  it('gives the delay hop the residual’s spread: equally likely delays as an empirical law', () => {
    const { topology } = calibratedTopology(readTemplate(TEMPLATE), { ...fit, networkUs: 300, networkDelayUs: [100, 300, 300, 2000] });
    expect(topology.services[NETWORK]!.serviceTime).toEqual({
      type: 'empirical',
      values: [
        { value: 100, weight: 1 },
        { value: 300, weight: 2 },
        { value: 2000, weight: 1 },
      ],
    });
  });

  it('turns GC pauses into rare long items whose mix keeps the fitted mean CPU per item', () => {
    const pauses = { minor: { perItem: 0.001, meanUs: 2000 }, major: { perItem: 0.0001, meanUs: 10_000 } };
    const { topology } = calibratedTopology(readTemplate(TEMPLATE), { ...fit, pauses, networkUs: 0 });
    const itemTime = topology.services['reference']!.itemTime as { type: 'empirical'; values: { value: number; weight: number }[] };
    expect(itemTime.type).toBe('empirical');
    const total = itemTime.values.reduce((n, v) => n + v.weight, 0);
    const mean = itemTime.values.reduce((n, v) => n + v.value * v.weight, 0) / total;
    expect(mean).toBeCloseTo(fit.itemTimeUs, 1);
    // Base 25.3 − 0.001 × 2000 − 0.0001 × 10000 = 22.3 µs; the pauses ride on it.
    expect(itemTime.values.map((v) => v.value)).toEqual([22, 23, 2022, 10_022]);
    expect(itemTime.values.slice(2).map((v) => v.weight / total)).toEqual([expect.closeTo(0.001, 6), expect.closeTo(0.0001, 6)]);
  });

  it('has no delay hop when the model is already as slow as the service at low load', () => {
    const { topology } = calibratedTopology(readTemplate(TEMPLATE), { ...fit, networkUs: 0 });
    expect(topology.entry).toBe('reference');
    expect(topology.services[NETWORK]).toBeUndefined();
  });

  it('refuses a topology whose entry makes no per-item cache call, as bad input', () => {
    const file = join(scratch, 'no-cache.yaml');
    writeFileSync(file, 'entry: api\nservices:\n  api: { workers: 4, serviceTime: 1ms }\n');
    expect(() => readTemplate(file)).toThrow(CalibrationInputError);
    expect(() => readTemplate(join(scratch, 'missing.yaml'))).toThrow(/cannot read topology/);
  });
});

describe('fractional µs', () => {
  it('become the two whole values around them, weighted to the exact mean', () => {
    expect(exactMeanUs(12)).toBe('12us');
    expect(exactMeanUs(12.999)).toBe('13us');
    expect(exactMeanUs(12.25)).toEqual({
      type: 'empirical',
      values: [
        { value: '12us', weight: 0.75 },
        { value: '13us', weight: 0.25 },
      ],
    });
  });
});

describe('the warm cache for a hit ratio', () => {
  it('holds the fewest most popular keys whose draws reach it', () => {
    expect(warmKeysFor(0.5, 1000, { type: 'uniform' })).toBe(500);
    // Zipf s = 1 over 4 keys: masses 12/25, 6/25, 4/25, 3/25 — the first key alone is 48%.
    expect(warmKeysFor(0.48, 4, { type: 'zipf', s: 1 })).toBe(1);
    expect(warmKeysFor(0.5, 4, { type: 'zipf', s: 1 })).toBe(2);
    // Hotspot: 10% of the keys take 90% of the draws.
    expect(warmKeysFor(0.45, 1000, { type: 'hotspot', keyFraction: 0.1, trafficShare: 0.9 })).toBe(50);
    expect(warmKeysFor(0.95, 1000, { type: 'hotspot', keyFraction: 0.1, trafficShare: 0.9 })).toBe(550);
    expect(warmKeysFor(0, 1000, { type: 'uniform' })).toBeUndefined();
  });
});
