import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/profile/protocols/registry.ts';
import { checkPlan, planFigures, planRefusals } from '../../src/analysis/plan-check.ts';
import { PlanRefusedError } from '../../src/analysis/plan-refused.ts';
import { loadProfile } from '../../src/profile/load.ts';
import type { Profile } from '../../src/profile/types.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { makeProfile } from '../helpers/profile.ts';

/** The model, the default target. */
const model = parseTarget('model');
const refusalsOf = (profile: Profile, scope = {}) =>
  planRefusals(planFigures(profile, createSchedule(profile).plan, { target: model, ...scope }), profile.limits).map((r) => r.limit);
const small = (changes: Record<string, unknown> = {}) => makeProfile({ name: 'p', phases: [{ type: 'steady', rate: 1000, duration: '10s' }], ...changes } as never);

describe('plan check', () => {
  it('passes every shipped profile and the test fixtures with the default limits', async () => {
    const files = [
      ...readdirSync('profiles')
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join('profiles', f)),
      'test/fixtures/cli/small.yaml',
      'test/fixtures/profiles/valid.yaml',
      'test/fixtures/profiles/with-topology-file.yaml',
    ];
    for (const file of files) expect([file, refusalsOf(await loadProfile(file))]).toEqual([file, []]);
  });

  it('refuses the plans that used to grow until V8 aborted or never ended', () => {
    expect(refusalsOf(small({ phases: [{ type: 'steady', rate: 1e9, duration: '1s' }] }))).toEqual(['maxRequests', 'maxMemoryMb']);
    expect(refusalsOf(small({ batch: 1e7 }))).toContain('maxBatch');
    expect(refusalsOf(small({ phases: [{ type: 'steady', rate: 1, duration: '100000h' }] }))).toEqual(['maxRequests', 'maxIntervals', 'maxDurationS']);
    expect(refusalsOf(small(), { runs: 100_000 })).toEqual(['maxRuns', 'maxDurationS']);
    expect(refusalsOf(small(), { intervalUs: 1 })).toEqual(['maxIntervals']);
  });

  it('states the figure, the limit and the override; a limits: section or force lets the plan run', () => {
    const slow = [{ type: 'steady', rate: 10, duration: '10s' }];
    const profile = small({ phases: slow, batch: { type: 'uniform', min: 1, max: 200_000 } });
    const plan = createSchedule(profile).plan;
    expect(() => checkPlan(profile, plan, { target: model })).toThrow(PlanRefusedError);
    expect(() => checkPlan(profile, plan, { target: model })).toThrow(
      '200,000 keys per request > limits.maxBatch 100,000. Override: --force, or raise limits.maxBatch in the profile (limits: section)',
    );
    expect(checkPlan(profile, plan, { target: model, force: true }).keysPerRequest).toBe(200_000);
    const raised = small({ phases: slow, batch: { type: 'uniform', min: 1, max: 200_000 }, limits: { maxBatch: 250_000 } });
    expect(checkPlan(raised, createSchedule(raised).plan, { target: model }).keysPerRequest).toBe(200_000);
  });

  it('figures: requests, the batch upper bound, intervals, files growing with the run', () => {
    const f = planFigures(small({ batch: { type: 'lognormal', median: 10, sigma: 1 } }), createSchedule(small()).plan, { target: model, intervalUs: 500_000 });
    expect(f.requests).toBe(10_000);
    expect(f.intervals).toBe(20);
    expect(f.keysPerRequest).toBeCloseTo(10 * Math.exp(4.75), 6);
    const long = planFigures(
      small({ phases: [{ type: 'steady', rate: 1000, duration: '1h' }] }),
      createSchedule(small({ phases: [{ type: 'steady', rate: 1000, duration: '1h' }] })).plan,
      { target: model },
    );
    expect(long.files.latencyLogMb).toBeGreaterThan(f.files.latencyLogMb * 100);
    // Intervals are streamed to disk: memory does not grow with the duration.
    expect(long.memoryMb).toBeLessThanOrEqual(f.memoryMb + 1);
  });

  it('sizes the requests in flight by the target protocol: its section’s inFlightCap, or the model’s peak second', () => {
    // 50,000 rps for 10 s: the model holds at most a second of it; a real target its cap.
    const profile = small({ phases: [{ type: 'steady', rate: 50_000, duration: '10s' }], http: { inFlightCap: 200_000 }, memcached: { inFlightCap: 100 } });
    const plan = createSchedule(profile).plan;
    const memoryOn = (target: string) => planFigures(profile, plan, { target: parseTarget(target) }).memoryMb;
    const perRequestMb = (1_000 + 150) / (1024 * 1024);
    expect(memoryOn('http://127.0.0.1:8080') - memoryOn('memcached://127.0.0.1:11211')).toBeCloseTo((200_000 - 100) * perRequestMb, -1);
    expect(memoryOn('model') - memoryOn('memcached://127.0.0.1:11211')).toBeCloseTo((50_000 - 100) * perRequestMb, -1);
  });
});
