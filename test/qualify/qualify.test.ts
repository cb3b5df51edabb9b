import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyseCapacity } from '../../src/analysis/capacity.ts';
import { qualify } from '../../src/qualify/qualify.ts';
import { renderQualificationReports } from '../../src/report/qualification-report.ts';
import { makeProfile } from '../helpers/profile.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-qualify-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// M/M/8 with 1 ms mean service: saturates at 8,000 rps; p99 ≤ 20 ms holds until close to it.
const MM8 = {
  name: 'mm8',
  seed: 7,
  phases: [{ type: 'steady', rate: 2000, duration: '60s' }],
  slo: { latency: [{ percentile: 99, max: '20ms' }], errorRate: 0.001 },
  production: { peakRps: 2000, dataCentres: 2 },
  topology: { entry: 'api', services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: '1ms' } } } },
};
const mm8 = makeProfile(MM8 as never);

describe('qualify on the model', { timeout: 120_000 }, () => {
  it('finds the capacity of M/M/8 below saturation, with headroom and an N+1 verdict, and writes every step', async () => {
    const out = join(scratch, 'mm8');
    const q = await qualify(mm8, { outDir: out, stepUs: 2_000_000, warmupUs: 500_000 });
    expect(q.capacityRps).toBeGreaterThan(5000);
    expect(q.capacityRps).toBeLessThan(8000);
    expect(q.steps.some((s) => !s.pass && s.askedRps > q.capacityRps)).toBe(true);
    expect(q.headroom).toBeCloseTo(q.capacityRps / 2000 - 1);
    // Two DCs: losing one doubles the load here, 4,000 rps, which M/M/8 carries.
    expect(q.failover).toMatchObject({ dataCentres: 2, demandRps: 4000, pass: true });
    expect(q.verdict).toBe('PASS');
    expect(q.limit?.by).toBe('target');
    // The two rates that decide the capacity ran twice each (--repeats 2); the model repeats itself exactly.
    expect(q.search?.repeats).toBe(2);
    expect(q.search?.bracket.passRps).toBe(q.capacityRps);
    expect(q.steps.filter((s) => s.purpose === 'repeat').map((s) => s.askedRps)).toEqual([q.capacityRps, q.search!.bracket.failRps]);
    expect(q.spread).toMatchObject({ series: 2, lowRps: q.capacityRps, highRps: q.capacityRps, share: 0 });
    expect(q.reasons.at(-1)).toMatch(/^the search stopped: the bracket \d+–\d+ rps is within the resolution \(5%\) and its rates ran 2× each$/);
    // The same steps against a peak of 5,000: N+1 needs 10,000, beyond saturation.
    expect(analyseCapacity(q.steps, 5000, 2).failover?.pass).toBe(false);

    expect(JSON.parse(readFileSync(join(out, 'qualification.json'), 'utf8')).schema).toBe('stampede.qualification/1');
    for (const s of q.steps) {
      expect(existsSync(join(out, s.dir, 'result.json'))).toBe(true);
      expect(existsSync(join(out, s.dir, 'report.md'))).toBe(true);
    }
    const { markdown, html } = renderQualificationReports(q);
    expect(markdown.split('\n')[0]).toBe('# mm8 qualification: PASS');
    expect(markdown).toMatch(/failover headroom\s+\| \+\d+%: \*\*PASS\*\*/);
    expect(markdown).toMatch(/\| step \| asked rps \| why \s*\| achieved rps \|/);
    expect(html).toContain('<svg');
  });

  it('is deterministic: the same profile gives the same steps', async () => {
    const a = await qualify(mm8, { outDir: join(scratch, 'a'), stepUs: 1_000_000, warmupUs: 0, maxSteps: 3 });
    const b = await qualify(mm8, { outDir: join(scratch, 'b'), stepUs: 1_000_000, warmupUs: 0, maxSteps: 3 });
    expect(b.steps).toEqual(a.steps);
  });

  it('stops the search, not the qualification, when the next step would be over the profile limits', async () => {
    // Steps of 4 s (stretched to 5,000 requests for a stable p99): 1,000 and 1,500 rps stay within 7,000 requests a run; 2,250 does not.
    const limited = makeProfile({ ...MM8, limits: { maxRequests: 7000 } } as never);
    const options = { stepUs: 4_000_000, warmupUs: 0, startRps: 1000, growth: 1.5 };
    const q = await qualify(limited, { ...options, outDir: join(scratch, 'limited'), maxSteps: 6 });
    expect(q.steps.map((s) => s.askedRps)).toEqual([1000, 1500]);
    expect(q.interrupted).toBe(false);
    expect(q.reasons.at(-1)).toMatch(/^the search stopped before the step at 2250 rps: 9,000 requests .*limits\.maxRequests 7,000/);
    // --force runs it anyway.
    const forced = await qualify(limited, { ...options, outDir: join(scratch, 'forced'), maxSteps: 3, force: true });
    expect(forced.steps.map((s) => s.askedRps)).toEqual([1000, 1500, 2250]);
  });
});
