import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProfile, ProfileError } from '../../src/profile/index.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { repoRoot } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-profiles-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const shipped = readdirSync(join(repoRoot, 'profiles')).filter((f) => f.endsWith('.yaml'));
/** Profiles for a real service carry no model topology: they are for their target only. */
const realOnly = new Set(['http-reference.yaml']);

interface LittlesLaw {
  inSystemMean: number;
  throughputRps: number;
  meanTimeInSystemUs: number;
}

/** Every profile we ship is valid, runs end to end on the model, and its books balance. */
describe.each(shipped.filter((f) => !realOnly.has(f)))('profiles/%s', (file) => {
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

describe.each([...realOnly])('profiles/%s (a real target, no topology)', (file) => {
  it('names a real target, and is refused on the model before any folder: the missing field named', async () => {
    const profile = await loadProfile(join(repoRoot, 'profiles', file));
    expect(profile.target).toMatch(/^http:\/\//);
    expect(profile.topology).toBeUndefined();
    const outDir = join(scratch, file);
    const refusal = runProfile(profile, { outDir, target: 'model' });
    await expect(refusal).rejects.toBeInstanceOf(ProfileError);
    await expect(refusal).rejects.toThrow(/topology: missing: the target is the model/);
    expect(existsSync(outDir)).toBe(false);
  });
});
