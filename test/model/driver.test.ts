import { describe, expect, it } from 'vitest';
import { createModelDriver } from '../../src/driver/model.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { TestRecorder } from './support/recorders.ts';
import { expectInvariants, expectLittlesLaw, runModel, testProfile, type ModelDetails } from './support/run.ts';

const mm8 = { entry: 'api', services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: '1ms' } } } };

describe('model driver', () => {
  it('pulls the schedule lazily: pending events stay flat however many requests', async () => {
    const { details } = await runModel({ phases: [{ type: 'steady', rate: 5000, duration: 40 }], topology: mm8 });
    expect(details.requests.started).toBeGreaterThan(190_000);
    // one pending arrival, one tick, the drain limit, and at most one completion per worker (+ a few)
    expect(details.pendingEventsHighWater).toBeLessThan(20);
    expect(details.events).toBeGreaterThan(2 * details.requests.started);
  });

  it('closes recorder intervals every virtual second and reports the gauges', async () => {
    const { recorder, report } = await runModel({ phases: [{ type: 'steady', rate: 1000, duration: 5 }], topology: mm8 });
    expect(recorder.intervals).toHaveLength(Math.floor(report.elapsedUs / 1e6));
    const g = recorder.intervals[2]!;
    for (const name of ['inFlight', 'openConnections', 'timeWaitConnections', 'idleConnections', 'queueDepth.api', 'busyWorkers.api', 'goodputRps', 'throughputRps']) {
      expect(g[name], name).toBeTypeOf('number');
    }
    expect(g['goodputRps']!).toBeGreaterThan(900);
    expect(g['goodputRps']!).toBeLessThan(1100);
    expect(g['throughputRps']).toBe(g['goodputRps']);
  });

  it('stops on the abort signal and fails what is in flight as unfinished', async () => {
    const profile = testProfile({ phases: [{ type: 'steady', rate: 5000, duration: 600 }], topology: { ...mm8, services: { api: { workers: 1, serviceTime: '1ms' } } } });
    const schedule = createSchedule(profile);
    const controller = new AbortController();
    // Aborts like Ctrl-C would, but after a fixed amount of work rather than wall time.
    const recorder = new (class extends TestRecorder {
      override complete(...args: Parameters<TestRecorder['complete']>): void {
        super.complete(...args);
        if (this.completions === 50_000) controller.abort();
      }
    })();
    const report = await createModelDriver({ sliceEvents: 10_000 }).run({ profile, schedule, recorder, signal: controller.signal });
    const details = report.model as unknown as ModelDetails;
    expect(report.interrupted).toBe(true);
    expect(report.elapsedUs).toBeLessThan(schedule.plan.totalUs);
    expect(recorder.failures('unfinished')).toBeGreaterThan(0);
    expectInvariants(details, recorder);
    expectLittlesLaw(details);
  });

  it('routes request kinds through the entry map and profile clients through the caller map', async () => {
    const { details } = await runModel({
      phases: [{ type: 'steady', rate: 1000, duration: 2 }],
      mix: [
        { kind: 'get', weight: 3 },
        { kind: 'admin', weight: 1 },
      ],
      clients: [
        { name: 'web', share: 1 },
        { name: 'mobile', share: 1 },
      ],
      topology: {
        entry: { default: 'api', admin: 'backoffice', typo: 'api' },
        caller: { default: 'browsers', mobile: 'apps' },
        clientGroups: { browsers: {}, apps: { instances: 3 } },
        services: { api: { workers: 'inf' }, backoffice: { workers: 'inf' } },
      },
    });
    const api = details.services['api']!.accepted;
    const backoffice = details.services['backoffice']!.accepted;
    expect(api + backoffice).toBe(details.requests.started);
    expect(backoffice / details.requests.started).toBeGreaterThan(0.2);
    expect(backoffice / details.requests.started).toBeLessThan(0.3);
    const browsers = details.clientGroups['browsers']!.attempts;
    const apps = details.clientGroups['apps']!.attempts;
    expect(browsers + apps).toBe(details.requests.started);
    expect(Math.abs(browsers - apps) / details.requests.started).toBeLessThan(0.1);
    expect(details.warnings).toEqual(['entry.typo: no request of kind "typo" in the profile']);
  });

  it('reports Little’s law figures: L = λW', async () => {
    const { details } = await runModel({ phases: [{ type: 'steady', rate: 6000, duration: 10 }], topology: mm8 });
    const { inSystemMean, throughputRps, meanTimeInSystemUs } = details.littlesLaw;
    expect(throughputRps).toBeGreaterThan(5900);
    expect(inSystemMean).toBeCloseTo((throughputRps * meanTimeInSystemUs) / 1e6, 6);
  });
});
