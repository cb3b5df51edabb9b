import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Calibration } from '../../src/calibrate/types.ts';
import type { Qualification } from '../../src/analysis/qualification.ts';
import { TopologySchema } from '../../src/profile/topology/index.ts';
import { stampede } from '../helpers/cli.ts';
import { startMemcached, type RunningMemcached } from '../helpers/memcached.ts';
import { startReferenceService, type RunningReference } from '../helpers/reference-service.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-calibrate-'));
let memcached: RunningMemcached;
let service: RunningReference;
beforeAll(async () => {
  memcached = await startMemcached();
  service = await startReferenceService(memcached.address);
});
afterAll(async () => {
  await service?.stop();
  await memcached?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

// A busy shared machine slips the generator's schedule and stalls the service now and then; the
// search should still step through its rates, so the generator limits and the SLO are loose here:
// this test checks that calibration runs and reports what it found, not what a quiet machine finds.
const LOOSE = [
  '--set',
  'generator.dispatchLatenessP99=5s',
  '--set',
  'generator.connectionWaitLatenessP99=5s',
  '--set',
  'generator.eventLoopLagP99=5s',
  '--set',
  'generator.cpu=1',
  // p90 needs 500 samples per step where p99 needs 5,000: short steps at these rates.
  '--set',
  'slo.latency[0].percentile=90',
  '--set',
  'slo.latency[0].max=2s',
  '--set',
  'slo.errorRate=0.05',
];

describe('stampede calibrate against the reference service over real memcached', () => {
  it('fits the model to a short real qualification, qualifies it, and reports the three rows with a verdict its exit code agrees with', { timeout: 240_000 }, () => {
    const realDir = join(scratch, 'real');
    // At most three steps of ~2–5 s, at 100, 200 and 400 rps.
    const real = stampede(
      [
        'qualify',
        'profiles/reference-calibration.yaml',
        '--target',
        service.url,
        '--step',
        '2s',
        '--warmup',
        '1s',
        '--start',
        '100',
        '--growth',
        '2',
        '--max-steps',
        '3',
        ...LOOSE,
        '--out',
        realDir,
        '--quiet',
      ],
      120_000,
    );
    expect(real.stderr).toBe('');
    const q = JSON.parse(readFileSync(join(realDir, 'qualification.json'), 'utf8')) as Qualification;
    expect(q.steps.length).toBeGreaterThan(0);
    expect(Math.max(...q.steps.map((s) => s.askedRps))).toBeLessThanOrEqual(400);

    // The memcached get time, from 2 s of gets at 200/s against the same memcached.
    const getsDir = join(scratch, 'gets');
    const gets = stampede(
      [
        'run',
        'profiles/user-cache-memcached.yaml',
        '--target',
        `memcached://${memcached.address}`,
        '--set',
        'phases[0].rate=200',
        '--set',
        'phases[0].duration=2s',
        '--set',
        'warmup=0s',
        '--out',
        getsDir,
        '--quiet',
      ],
      60_000,
    );
    expect(gets.stderr).toBe('');

    const outDir = join(scratch, 'calibration');
    const run = stampede(['calibrate', realDir, '--topology', 'profiles/topologies/reference-service.yaml', '--memcached-run', getsDir, '--out', outDir], 120_000);
    const c = JSON.parse(readFileSync(join(outDir, 'calibration.json'), 'utf8')) as Calibration;

    // The three rows, at 0.5×, 0.8× and 1.0× the service's capacity, in the JSON, the markdown and the terminal.
    expect(c.capacity.realRps).toBe(q.capacityRps);
    expect(c.rows.map((r) => [r.multiple, r.rps])).toEqual([0.5, 0.8, 1].map((m) => [m, Math.round(m * q.capacityRps)]));
    const markdown = readFileSync(join(outDir, 'calibration.md'), 'utf8');
    for (const row of c.rows) {
      const label = `p99 at ${row.multiple.toFixed(1)}× (${row.rps} rps)`;
      expect(markdown).toContain(label);
      expect(run.stdout).toContain(label);
      expect(row.real.p99Us).toBeGreaterThan(0);
      expect(row.model.p99Us).toBeGreaterThan(0);
    }

    // Plausible figures: positive, the service's CPU per request within what its lowest step measured.
    const f = c.fitted;
    const lowest = [...q.steps].sort((a, b) => a.askedRps - b.askedRps)[0]!;
    expect(f.demandUs).toBeGreaterThan(0);
    expect(f.demandUs).toBeLessThan(lowest.latencyUs.max);
    // The reference service reports its process's CPU time, which is what bounds it on one core.
    expect(f.demandFrom).toBe('process CPU time');
    // …and its garbage collections, which become the model's rare long items.
    expect(f.pauses).toBeDefined();
    expect(f.itemTimeUs).toBeGreaterThan(0);
    expect(f.lookupsPerRequest).toBeGreaterThanOrEqual(1);
    expect(f.lookupsPerRequest).toBeLessThanOrEqual(20); // batches of 1–20 URIs
    expect(f.hitRatio).toBeGreaterThanOrEqual(0);
    expect(f.hitRatio).toBeLessThanOrEqual(1);
    expect(f.memcached.getUs).toBeGreaterThan(0);
    expect(f.memcached.from).toContain(getsDir);
    expect(f.networkUs).toBeGreaterThanOrEqual(0);
    // What the service reported of its settings: serve reference's defaults.
    expect(f.settings).toEqual({ limit: 'inf', storeDelayUs: 1000, poolMaxOpen: 512, poolMaxIdle: 100, checkoutTimeoutUs: 100_000, operationTimeoutUs: 500_000 });

    // The calibrated topology is a valid topology with the fitted service on one core.
    const topology = TopologySchema.parse(parse(readFileSync(c.calibratedTopologyFile, 'utf8')));
    expect(topology.services['reference']).toMatchObject({ cpus: 1 });
    // The model was qualified the way the service was: same first rate, on the model.
    const model = JSON.parse(readFileSync(join(outDir, c.model.qualificationDir, 'qualification.json'), 'utf8')) as Qualification;
    expect(model.target).toBe('model');
    expect(model.steps[0]!.askedRps).toBe(q.steps[0]!.askedRps);
    expect(c.model.stepDirs.every((d) => existsSync(join(outDir, d, 'result.json')))).toBe(true);

    // The verdict follows from the figures, and the exit code and the last line from the verdict.
    const p99At08 = c.rows.find((r) => r.multiple === 0.8)!;
    const met = c.knee.difference !== undefined && Math.abs(c.knee.difference) <= 0.25 && Math.abs(p99At08.difference) <= 0.3;
    expect(c.verdict.met).toBe(met);
    expect(run.status).toBe(met ? 0 : 1);
    expect(run.stdout.trim().split('\n').at(-1)).toBe(`calibration: ${met ? 'targets met' : 'targets NOT met'}`);
    if (!met) expect(c.verdict.disagreements.length).toBeGreaterThan(0);
  });

  it('refuses a folder that is not a qualification, as bad input (exit 2)', () => {
    const run = stampede(['calibrate', scratch, '--topology', 'profiles/topologies/reference-service.yaml', '--out', join(scratch, 'nothing')], 60_000);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('qualification.json');
  });
});
