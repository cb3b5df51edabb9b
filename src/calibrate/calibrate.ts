import { basename, join, resolve } from 'node:path';
import { sha256Hex } from '../profile/fingerprint.ts';
import type { Topology } from '../profile/topology/index.ts';
import type { Profile } from '../profile/types.ts';
import { runProfile } from '../pipeline/run.ts';
import { qualify } from '../qualify/qualify.ts';
import { stepProfile } from '../qualify/step-profile.ts';
import { renderQualificationReports } from '../report/qualification-report.ts';
import { Outputs, writeReports } from '../run-folder/index.ts';
import { calibratedTopology, topologyYaml } from './calibrated-topology.ts';
import { CALIBRATION_TARGETS, calibrationVerdict, kneeRow, loadRow, worstChurn } from './compare.ts';
import { CalibrationInputError } from './errors.ts';
import { fitService } from './fit.ts';
import { readMemcachedRun } from './memcached-run.ts';
import { type RealQualification, readRealQualification } from './real-qualification.ts';
import { fittedLines, renderCalibrationMarkdown } from './report.ts';
import { readTemplate } from './template.ts';
import { CALIBRATION_SCHEMA, type Calibration, type CurvePoint, type FittedParameters, MULTIPLES, type RealStep } from './types.ts';

export interface CalibrateOptions {
  /** The `stampede qualify` folder of the real service. */
  realDir: string;
  /** The topology to calibrate (its structure is kept, its figures fitted). */
  topologyFile: string;
  outDir: string;
  /** A low-rate `stampede run` against memcached: the per-get time. */
  memcachedRunDir?: string | undefined;
  signal?: AbortSignal | undefined;
  /** One line per stage (progress output). */
  onProgress?: (line: string) => void;
  /** Where a file the disk refuses is recorded (see RunOptions.outputs); without it, FilesLostError names them at the end. */
  outputs?: Outputs | undefined;
}

/** The files calibrate writes into its folder. */
export const CALIBRATION_FILES = {
  json: 'calibration.json',
  markdown: 'calibration.md',
  topology: 'topology.calibrated.yaml',
  modelQualification: 'model-qualify',
  modelSteps: 'model-steps',
} as const;

/**
 * Fits the model to a real qualification, qualifies the calibrated model the same way, and puts the
 * two side by side: knee, and p99 at 0.5×, 0.8× and 1.0× the service's capacity. Writes the
 * calibrated topology, calibration.json and calibration.md. Undefined when interrupted.
 * @throws CalibrationInputError when a folder or the topology cannot be calibrated from
 */
export async function calibrate(options: CalibrateOptions): Promise<Calibration | undefined> {
  const progress = options.onProgress ?? (() => {});
  const outputs = options.outputs ?? new Outputs();
  const real = readRealQualification(options.realDir);
  if (real.qualification.capacityRps <= 0) throw new CalibrationInputError(`${options.realDir} found no capacity (no step passed)`, 'qualify again from a lower rate (--start)');
  const template = readTemplate(options.topologyFile);
  const memcached = options.memcachedRunDir !== undefined ? readMemcachedRun(options.memcachedRunDir) : undefined;
  const fit = fitService(real, template.shape.templateGetUs, memcached);
  const topologyFile = resolve(options.outDir, CALIBRATION_FILES.topology);
  const lowest = real.steps[0]!;

  progress(`fitted: ${fit.itemTimeUs.toFixed(1)} µs CPU per URI, hit ratio ${(fit.hitRatio * 100).toFixed(1)}%; the model at ${lowest.askedRps} rps for the residual delay`);
  const probe = await runModelStep(
    modelProfile(real.profile, calibratedTopology(template, fit).topology, topologyFile),
    real,
    lowest,
    join(options.outDir, 'model-probe'),
    options.signal,
    outputs,
  );
  if (probe === undefined) return undefined;
  const residual = (us: number) => Math.max(0, us - probe.p50Us);
  const fitted: FittedParameters = {
    ...fit,
    modelLowLoadP50Us: probe.p50Us,
    networkUs: residual(fit.lowLoad.p50Us),
    networkDelayUs: fit.lowLoad.quantilesUs.map(residual),
  };
  const calibrated = calibratedTopology(template, fitted);
  outputs.write(topologyFile, topologyYaml(calibrated.raw, [`Calibrated by stampede calibrate from ${options.realDir} and ${options.topologyFile}.`, ...fittedLines(fitted)]));
  const profile = modelProfile(real.profile, calibrated.topology, topologyFile);

  const modelCurve: CurvePoint[] = [];
  const stepDirs: string[] = [];
  for (const step of real.steps) {
    progress(`model at the service's step ${step.askedRps} rps`);
    const dir = join(CALIBRATION_FILES.modelSteps, basename(step.dir));
    const run = await runModelStep(profile, real, step, join(options.outDir, dir), options.signal, outputs);
    if (run === undefined) return undefined;
    modelCurve.push({ rps: step.askedRps, p99Us: run.p99Us });
    stepDirs.push(dir);
  }
  progress('qualifying the calibrated model');
  const modelQualification = await qualifyModel(profile, real, join(options.outDir, CALIBRATION_FILES.modelQualification), options.signal, outputs);
  if (modelQualification === undefined) return undefined;

  const realCurve = real.steps.map((s) => ({ rps: s.askedRps, p99Us: s.latencyUs.p99 }));
  const capacity = real.qualification.capacityRps;
  const rows = MULTIPLES.map((m) => loadRow(m, Math.round(m * capacity), realCurve, modelCurve));
  const knee = kneeRow(realCurve, modelCurve, { real: real.qualification.knee, model: modelQualification.knee });
  const calibration: Calibration = {
    schema: CALIBRATION_SCHEMA,
    realDir: options.realDir,
    topologyFile: options.topologyFile,
    calibratedTopologyFile: topologyFile,
    profile: real.profile.name,
    capacity: { realRps: capacity, modelRps: modelQualification.capacityRps },
    fitted,
    knee,
    rows,
    targets: CALIBRATION_TARGETS,
    verdict: calibrationVerdict(knee, rows, {
      realRps: capacity,
      modelRps: modelQualification.capacityRps,
      coreRps: fitted.coreCapacityRps,
      churn: worstChurn(real.steps, fitted.settings.poolMaxIdle, real.qualification.step.warmupMs),
    }),
    model: { qualificationDir: CALIBRATION_FILES.modelQualification, stepDirs },
    curves: { real: realCurve, model: modelCurve },
  };
  outputs.writeJson(join(options.outDir, CALIBRATION_FILES.json), calibration);
  outputs.write(join(options.outDir, CALIBRATION_FILES.markdown), renderCalibrationMarkdown(calibration));
  if (options.outputs === undefined) outputs.throwIfLost();
  return calibration;
}

/** The qualified profile on the model with the calibrated topology. */
function modelProfile(profile: Profile, topology: Topology, topologyFile: string): Profile {
  const { source, ...rest } = { ...profile, target: 'model', topology };
  return { ...rest, source: { ...source, topologyFile, sha256: sha256Hex(rest) } };
}

/** The model at a service step's rate, duration and warm-up; undefined when interrupted. */
async function runModelStep(profile: Profile, real: RealQualification, step: RealStep, outDir: string, signal: AbortSignal | undefined, outputs: Outputs) {
  const shaped = stepProfile(profile, step.askedRps, { stepUs: step.durationMs * 1000, warmupUs: real.qualification.step.warmupMs * 1000 });
  const { result } = await runProfile(shaped, { outDir, target: 'model', reports: false, force: true, outputs, ...(signal && { signal }) });
  return result.interrupted ? undefined : { p50Us: result.latencyUs.p50, p99Us: result.latencyUs.p99 };
}

/**
 * qualify on the model with the service's search: its first rate, its growth (the ratio of its
 * first two steps), its number of steps, its repeats and its step shape. Writes the qualification's reports.
 */
async function qualifyModel(profile: Profile, real: RealQualification, outDir: string, signal: AbortSignal | undefined, outputs: Outputs) {
  const run = real.qualification.steps;
  // The first step that grew from the first rate (a re-run of the first step may come between them; older files name no purpose).
  const grown = run.find((s) => s.purpose === 'grow') ?? run[1];
  const growth = grown !== undefined && grown.askedRps > run[0]!.askedRps ? grown.askedRps / run[0]!.askedRps : undefined;
  const q = await qualify(profile, {
    outDir,
    target: 'model',
    stepUs: real.qualification.step.durationMs * 1000,
    warmupUs: real.qualification.step.warmupMs * 1000,
    startRps: run[0]!.askedRps,
    ...(growth !== undefined && { growth }),
    maxSteps: run.length,
    // Qualifications from before repeats ran each rate once.
    repeats: real.qualification.search?.repeats ?? 1,
    outputs,
    ...(signal && { signal }),
  });
  if (q.interrupted) return undefined;
  writeReports(outDir, renderQualificationReports(q), outputs);
  return q;
}
