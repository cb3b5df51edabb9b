import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { completeSteps } from '../analysis/capacity.ts';
import type { Qualification } from '../analysis/qualification.ts';
import { parseTarget, protocolOf } from '../profile/protocols/registry.ts';
import type { Profile } from '../profile/types.ts';
import type { GaugeStats } from '../recorder/interval-digest.ts';
import { QUALIFICATION_FILE, readQualification, readRunFolder } from '../run-folder/index.ts';
import { CalibrationInputError } from './errors.ts';
import type { RealStep, ServiceCounters, ServiceSettings } from './types.ts';

/** A `stampede qualify` folder of a real service, read back for calibration. */
export interface RealQualification {
  dir: string;
  qualification: Qualification;
  /** The qualified profile (a step's profile.json, its qualify override removed). */
  profile: Profile;
  /** The complete steps, by rising rate. */
  steps: RealStep[];
  /** What the service reported of its settings (its last GET /stats). */
  settings: ServiceSettings;
}

const QUALIFY_HINT = 'give a folder written by `stampede qualify` against `stampede serve reference` (http.statsPath: /stats)';

/** Reads a qualification folder and each complete step's run folder. @throws CalibrationInputError; InputFileError for a file of it that is unreadable or not stampede's */
export function readRealQualification(dir: string): RealQualification {
  if (!existsSync(join(dir, QUALIFICATION_FILE))) throw new CalibrationInputError(`no qualification.json in ${dir}`, QUALIFY_HINT);
  const qualification = readQualification(dir);
  if (protocolOf(parseTarget(qualification.target)).simulated) throw new CalibrationInputError(`${dir} qualified the model, not a real service`, QUALIFY_HINT);
  const steps = completeSteps(qualification.steps).sort((a, b) => a.askedRps - b.askedRps);
  if (steps.length === 0) throw new CalibrationInputError(`${dir} has no complete step`, QUALIFY_HINT);
  let profile: Profile | undefined;
  let settings: ServiceSettings | undefined;
  const real: RealStep[] = steps.map((step) => {
    const stepDir = join(dir, step.dir);
    if (!existsSync(join(stepDir, 'result.json'))) throw new CalibrationInputError(`step folder ${stepDir} has no result.json`, QUALIFY_HINT);
    const stored = readRunFolder(stepDir);
    profile ??= stored.profile;
    settings ??= serviceSettings(stored.result.driver.targetStats);
    const service = serviceCounters(stored.result.intervals.gauges);
    return { ...step, meanUs: stored.result.latencyUs.mean, latencyHistogram: stored.result.histograms.latency, ...(service && { service }) };
  });
  if (!profile) throw new CalibrationInputError(`no step of ${dir} kept its profile.json`, QUALIFY_HINT);
  if (!settings) throw new CalibrationInputError(`no step of ${dir} holds the reference service's settings (GET /stats)`, QUALIFY_HINT);
  return { dir, qualification, profile: unstepped(profile), steps: real, settings };
}

/** The step's profile as the qualified one: qualify scales it again to each rate, so its own step override goes. */
function unstepped(profile: Profile): Profile {
  return { ...profile, source: { ...profile.source, overrides: profile.source.overrides.filter((o) => !o.startsWith('qualify: ')) } };
}

/** The settings section of the service's stats document, when it is the reference service's. */
function serviceSettings(stats: unknown): ServiceSettings | undefined {
  const doc = stats as { limit?: unknown; settings?: Partial<Record<keyof ServiceSettings, unknown>> } | undefined;
  const s = doc?.settings;
  if (!s) return undefined;
  const numbers = [s.storeDelayUs, s.poolMaxOpen, s.poolMaxIdle, s.checkoutTimeoutUs, s.operationTimeoutUs];
  if (!numbers.every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  const limit = typeof doc.limit === 'number' ? doc.limit : 'inf';
  const [storeDelayUs, poolMaxOpen, poolMaxIdle, checkoutTimeoutUs, operationTimeoutUs] = numbers as number[];
  return {
    limit,
    storeDelayUs: storeDelayUs!,
    poolMaxOpen: poolMaxOpen!,
    poolMaxIdle: poolMaxIdle!,
    checkoutTimeoutUs: checkoutTimeoutUs!,
    operationTimeoutUs: operationTimeoutUs!,
  };
}

/**
 * The service's counters over a step: each is cumulative in GET /stats, polled once per interval
 * into a gauge, so its last sample minus its first is what the step added (warm-up included, the
 * same window for every counter, so their ratios hold).
 */
function serviceCounters(gauges: Record<string, GaugeStats>): ServiceCounters | undefined {
  const delta = (name: string): number | undefined => {
    const g = gauges[`target.${name}`];
    return g === undefined ? undefined : g.max - g.min;
  };
  const figures = ['requests.ok', 'requests.failed', 'lookups.hits', 'lookups.misses', 'lookups.errors', 'eventLoop.activeUs'].map(delta);
  if (figures.some((f) => f === undefined)) return undefined;
  const [ok, failed, hits, misses, errors, activeUs] = figures as number[];
  const cpuUs = delta('cpu.usedUs');
  const connectionsOpened = delta('connections.memcachedOpened');
  const gcFigures = ['gc.minorPauses', 'gc.minorPauseUs', 'gc.majorPauses', 'gc.majorPauseUs'].map(delta);
  const [minorPauses, minorPauseUs, majorPauses, majorPauseUs] = gcFigures as number[];
  const gc = gcFigures.every((f) => f !== undefined)
    ? { minorPauses: minorPauses!, minorPauseUs: minorPauseUs!, majorPauses: majorPauses!, majorPauseUs: majorPauseUs! }
    : undefined;
  return {
    requests: ok! + failed!,
    lookups: hits! + misses! + errors!,
    hits: hits!,
    misses: misses!,
    eventLoopActiveUs: activeUs!,
    ...(cpuUs !== undefined && { cpuUs }),
    ...(connectionsOpened !== undefined && { connectionsOpened }),
    ...(gc && { gc }),
  };
}
