import { describe, expect, it } from 'vitest';
import { realismFlags } from '../../../src/analysis/realism/index.ts';
import type { RealismFlag } from '../../../src/analysis/realism/types.ts';
import { K6ScriptError } from '../../../src/interop/k6/errors.ts';
import { k6OptionFlags, lintK6Script } from '../../../src/interop/k6/lint/index.ts';
import { loadProfile } from '../../../src/profile/load.ts';
import { createSchedule } from '../../../src/schedule/index.ts';
import { profileWith, resultWith } from '../../analysis/realism/fixtures.ts';
import { exported, STOREFRONT, scratchDir } from './helpers.ts';

const ids = (flags: RealismFlag[]) => flags.map((f) => `${f.severity} ${f.id}`);

describe('stampede lint on k6 scripts', () => {
  it('calls the classic closed-loop script INVALID and says why', async () => {
    const flags = await lintK6Script('profiles/k6/closed-loop.js');
    expect(ids(flags)).toEqual(['invalid coordinated-omission', 'warn no-warmup', 'warn no-thresholds', 'warn error-rate-ignored', 'info one-client-shape']);
    expect(flags[0]!.evidence).toMatch(/vus and duration \(k6 runs constant-vus\)/);
  });

  it('finds nothing to flag in an open-model script with a ramp, two callers and thresholds', async () => {
    expect(await lintK6Script('profiles/k6/open-model.js')).toEqual([]);
  });

  it('finds nothing to flag in the script stampede exports', async () => {
    const { file } = await exported(await loadProfile(STOREFRONT, []), scratchDir());
    expect(await lintK6Script(file)).toEqual([]);
  });

  it('flags one generator for three load zones and 50,000 requests/s (TypeScript)', async () => {
    const flags = await lintK6Script('test/fixtures/k6/one-host-many-zones.ts');
    expect(ids(flags)).toEqual(['warn client-instances', 'info one-client-shape']);
    expect(flags[0]!.evidence).toMatch(/3 load zones.*peak arrival rate 50,000\/s/);
  });

  it('runs init code with local imports, open(), SharedArray, remote jslib and unknown k6 modules', async () => {
    expect(ids(await lintK6Script('test/fixtures/k6/uses-helpers.js'))).toEqual(['invalid coordinated-omission', 'warn error-rate-ignored', 'info one-client-shape']);
  });

  it('refuses a script that does not compile or whose init code throws, naming why', async () => {
    await expect(lintK6Script('test/fixtures/k6/does-not-compile.js')).rejects.toThrow(K6ScriptError);
    await expect(lintK6Script('test/fixtures/k6/throws-in-init.js')).rejects.toThrow(/its init code threw: set SHOP_URL/);
    await expect(lintK6Script('test/fixtures/k6/throws-in-init.js', { SHOP_URL: 'http://127.0.0.1:8080' })).resolves.toBeDefined();
    await expect(lintK6Script('test/fixtures/k6/absent.js')).rejects.toThrow(/no such file/);
  });

  it.each([
    ['vus and duration', { vus: 10, duration: '1m' }, 'constant-vus'],
    ['stages', { stages: [{ target: 10, duration: '1m' }] }, 'ramping-vus'],
    ['iterations', { vus: 5, iterations: 100 }, 'shared-iterations'],
    ['per-vu-iterations', { scenarios: { a: { executor: 'per-vu-iterations', vus: 5, iterations: 10 } } }, 'per-vu-iterations'],
  ])('reads %s as the closed-loop executor k6 runs for it', (_, options, executor) => {
    const co = k6OptionFlags(options).find((f) => f.id === 'coordinated-omission');
    expect(co?.severity).toBe('invalid');
    expect(co?.evidence).toContain(executor);
  });

  it('takes a warm-up window scoped out of the thresholds as a warm-up, and a short run as short', () => {
    const steady = { scenarios: { a: { executor: 'constant-arrival-rate', rate: 10, duration: '1m', preAllocatedVUs: 5 } } };
    expect(ids(k6OptionFlags(steady))).toContain('warn no-warmup');
    expect(ids(k6OptionFlags({ ...steady, thresholds: { 'http_req_duration{window:measured}': ['p(99)<100'] } }))).not.toContain('warn no-warmup');
    const short = { scenarios: { a: { executor: 'constant-arrival-rate', rate: 10, duration: '10s', preAllocatedVUs: 5 } } };
    expect(k6OptionFlags(short).find((f) => f.id === 'short-run')?.evidence).toBe('runs for 10s (< 20s)');
  });
});

describe('the k6 flags speak as the profile flags do', () => {
  /** The profile flag of the same id, raised by stampede for a profile (or run) with the same departure. */
  const profileFlag = (id: string, flags: RealismFlag[]) => flags.find((f) => f.id === id)!;
  const same = (k6: RealismFlag, profile: RealismFlag, severity = true) => {
    expect(k6.title).toBe(profile.title);
    expect(k6.incident).toBe(profile.incident);
    if (severity) expect(k6.severity).toBe(profile.severity);
  };
  const k6 = k6OptionFlags({ vus: 10, duration: '10s' });
  const k6Flag = (id: string) =>
    k6.find((f) => f.id === id) ??
    k6OptionFlags({ scenarios: { a: { executor: 'constant-arrival-rate', rate: 30_000, duration: '1m', preAllocatedVUs: 5 } } }).find((f) => f.id === id)!;

  it('closed-loop load, no warm-up, a short run, the error rate ignored', () => {
    const closed = realismFlags({ profile: profileWith({}), result: resultWith({ driver: { loop: 'closed' } as never }) });
    same(k6Flag('coordinated-omission'), profileFlag('coordinated-omission', closed));
    const careless = realismFlags({ profile: profileWith({ warmup: 0, duration: '10s', slo: { latency: [] } }) });
    for (const id of ['no-warmup', 'short-run', 'error-rate-ignored']) same(k6Flag(id), profileFlag(id, careless));
  });

  it('too few samples for a percentile', () => {
    const k6Flags = k6OptionFlags({
      scenarios: { a: { executor: 'constant-arrival-rate', rate: 10, duration: '1m', preAllocatedVUs: 5 } },
      thresholds: { http_req_duration: ['p(99.9)<100', 'p(50)<10'] },
    });
    const k6Flag = k6Flags.find((f) => f.id === 'too-few-samples')!;
    expect(k6Flag.evidence).toBe('p99.9 from 600 expected requests: 0.6 beyond it');
    expect(k6Flags.filter((f) => f.id === 'too-few-samples')).toHaveLength(1);
    const profile = profileWith({
      warmup: 0,
      multipliers: [],
      phases: [{ type: 'steady', rate: 10, duration: '60s' }],
      slo: { latency: [{ percentile: 99.9, max: '100ms' }], errorRate: 0.001 },
    });
    const profileFlags = realismFlags({ profile, plan: createSchedule(profile).plan });
    same(k6Flag, profileFlag('too-few-samples', profileFlags));
    expect(k6Flag.evidence).toBe(profileFlag('too-few-samples', profileFlags).evidence);
  });

  it('one generator for every client (a warning for k6: it is raised only at a high rate or several zones)', () => {
    const oneGenerator = realismFlags({ profile: profileWith({ target: 'http://127.0.0.1:8080', productionChanges: { clientInstances: undefined } }) });
    same(k6Flag('client-instances'), profileFlag('client-instances', oneGenerator), false);
  });
});
