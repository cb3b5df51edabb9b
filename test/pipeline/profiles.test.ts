import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/profile/index.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { repoRoot } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-profiles-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const shipped = readdirSync(join(repoRoot, 'profiles')).filter((f) => f.endsWith('.yaml'));

interface LittlesLaw {
  inSystemMean: number;
  throughputRps: number;
  meanTimeInSystemUs: number;
}

/** Every profile we ship is valid, runs end to end on the model, and its books balance. */
describe.each(shipped)('profiles/%s', (file) => {
  it('runs on the model: ledger balances, Little’s law holds within 2%, every interval has gauges', { timeout: 120_000 }, async () => {
    const profile = await loadProfile(join(repoRoot, 'profiles', file));
    const { result, analysis } = await runProfile(profile, { outDir: join(scratch, file) });
    const r = result.requests;
    expect(r.sent).toBeGreaterThan(0);
    expect(r.sent).toBe(r.ok + r.failed + r.inFlightAtEnd);
    expect(r.scheduled).toBe(r.sent + r.dropped);
    // Poisson arrivals: the measured count stays within 5 standard deviations of the plan.
    expect(Math.abs(r.scheduled - r.expected)).toBeLessThan(5 * Math.sqrt(r.expected) + 2);
    const law = result.driver.model!.littlesLaw as LittlesLaw;
    const lambdaW = law.throughputRps * (law.meanTimeInSystemUs / 1e6);
    expect(Math.abs(law.inSystemMean - lambdaW) / lambdaW).toBeLessThan(0.02);
    expect(result.intervals.series.length).toBeGreaterThan(0);
    for (const interval of result.intervals.series) expect(interval.gauges).toHaveProperty('inFlight');
    expect(analysis.slo.checks.length).toBeGreaterThan(0);
  });
});
