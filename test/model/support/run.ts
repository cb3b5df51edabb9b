import { expect } from 'vitest';
import { createModelDriver, type ModelDriverOptions } from '../../../src/driver/model.ts';
import type { DriverReport, ModelReport } from '../../../src/recorder/driver-report.ts';
import type { ProfileInput } from '../../../src/profile/schema.ts';
import type { Profile } from '../../../src/profile/types.ts';
import { createSchedule } from '../../../src/schedule/index.ts';
import { makeProfile } from '../../helpers/profile.ts';
import { TestRecorder } from './recorders.ts';

/** `DriverReport.model` with the component details the tests read. */
export interface ModelDetails extends Pick<ModelReport, 'events' | 'pendingEventsHighWater' | 'traceHash' | 'virtualEndUs' | 'littlesLaw' | 'requests'> {
  services: Record<
    string,
    { accepted: number; rejected: number; started: number; succeeded: number; failed: number; meanQueueWaitUs: number; queueHighWater: number; itemsInFlightHighWater: number }
  >;
  caches: Record<string, { gets: number; hits: number; misses: number; sets: number; rejected: number; hitRatio: number; evictions: number }>;
  databases: Record<string, { completed: number; rejected: number; meanLatencyUs: number; outstandingHighWater: number }>;
  clientGroups: Record<
    string,
    {
      attempts: number;
      dials: number;
      dialErrors: number;
      closes: number;
      timeouts: number;
      checkoutTimeouts: number;
      retries: number;
      retriesDenied: number;
      markDowns: number;
      routedAround: number;
      refused: number;
      waiting: number;
      waitingHighWater: number;
      openHighWaterPerPool: number;
      maxOpen: number | 'inf';
    }
  >;
  hosts: Record<string, { portRange: number | 'inf'; timeWait: number; timeWaitHighWaterPerTuple: number; portsHighWaterPerTuple: number }>;
  warnings: string[];
}

export interface ModelRunResult {
  report: DriverReport;
  details: ModelDetails;
  recorder: TestRecorder;
}

/** A profile as a test writes it; the topology is plain data checked by the schema at run time. */
export type TestProfile = Omit<ProfileInput, 'topology' | 'name'> & { name?: string; topology: unknown };

/**
 * Runs a profile on the model driver through the real schedule, then checks what must hold for
 * every run: the request ledger balances, Little's law, pool and port limits.
 */
export function runModel(input: TestProfile, options: RunOptions = {}): Promise<ModelRunResult> {
  return runProfileOnModel(testProfile(input), options);
}

/** The profile the loader would return for `input` (validated, defaults applied). */
export function testProfile(input: TestProfile): Profile {
  return makeProfile({ name: 'model-test', ...input, topology: input.topology as ProfileInput['topology'] });
}

export type RunOptions = ModelDriverOptions & { maxLatencyUs?: number };

export async function runProfileOnModel(profile: Profile, options: RunOptions = {}): Promise<ModelRunResult> {
  const schedule = createSchedule(profile);
  const recorder = new TestRecorder(1_000_000, options.maxLatencyUs);
  const report = await createModelDriver(options).run({ profile, schedule, recorder, signal: new AbortController().signal });
  const details = report.model as unknown as ModelDetails;
  expectInvariants(details, recorder);
  expectLittlesLaw(details);
  return { report, details, recorder };
}

/** L = λW over the run: the time-average of requests in the system against throughput × mean time in system. */
export function expectLittlesLaw(details: ModelDetails, tolerance = 0.02): void {
  const { inSystemMean, throughputRps, meanTimeInSystemUs } = details.littlesLaw;
  const lambdaW = (throughputRps * meanTimeInSystemUs) / 1e6;
  if (lambdaW === 0) return expect(inSystemMean).toBe(0);
  expect(Math.abs(inSystemMean - lambdaW) / lambdaW).toBeLessThanOrEqual(tolerance);
}

export function expectInvariants(details: ModelDetails, recorder: TestRecorder): void {
  const r = details.requests;
  expect(r.started).toBe(r.succeeded + r.failed + r.inFlight);
  expect(r.inFlight).toBe(0);
  expect(recorder.sentCount).toBe(r.started);
  expect(recorder.completions).toBe(r.started);
  expect(recorder.succeeded).toBe(r.succeeded);
  for (const [name, g] of Object.entries(details.clientGroups)) {
    if (g.maxOpen !== 'inf') expect(g.openHighWaterPerPool, `open connections of ${name}`).toBeLessThanOrEqual(g.maxOpen);
  }
  for (const [name, h] of Object.entries(details.hosts)) {
    if (h.portRange === 'inf') continue;
    expect(h.portsHighWaterPerTuple, `ports of ${name}`).toBeLessThanOrEqual(h.portRange);
    expect(h.timeWaitHighWaterPerTuple, `TIME_WAIT of ${name}`).toBeLessThanOrEqual(h.portRange);
  }
}
