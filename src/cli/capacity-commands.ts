import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { compareRuns } from '../analysis/compare.ts';
import { formatUs } from '../analysis/format.ts';
import { loadProfile, ProfileError } from '../profile/index.ts';
import type { Profile } from '../profile/types.ts';
import { parseDurationUs } from '../profile/units.ts';
import { qualify } from '../qualify/qualify.ts';
import type { Qualification } from '../analysis/qualification.ts';
import { realismFlags } from '../analysis/realism/index.ts';
import { productionFromSample, withProduction } from '../analysis/realism/production-sample.ts';
import { renderReportsInto } from '../pipeline/run.ts';
import { analyseRun } from '../analysis/analyse-run.ts';
import { defaultRunDir, readRunFolder, RUN_FILES, writeAnalysis } from '../run-folder/index.ts';
import { renderComparison } from '../report/compare-report.ts';
import { flagsMarkdown } from '../report/flags.ts';
import { renderHistory } from '../report/history-report.ts';
import { writeQualificationReports } from '../report/qualification-report.ts';
import { findSnapshotDirs, isRunDir, loadSnapshot } from '../run-folder/snapshot.ts';
import { createSchedule } from '../schedule/index.ts';
import { ExitCode } from './exit-codes.ts';

/*
 * Capacity-report commands: qualify, lint, report, compare, history. Handlers return exit codes;
 * main.ts turns thrown ProfileErrors into exit 2.
 */

function commandLineError(path: string, message: string, hint: string): ProfileError {
  return new ProfileError('<command line>', [{ file: '<command line>', line: 0, column: 0, path, message, hint }]);
}

/** A duration option: "10s", "500ms", or a bare number of seconds (as in profiles). */
function durationOption(option: string, text: string, allowZero = false): number {
  const us = /^\d+(\.\d+)?$/.test(text.trim()) ? parseDurationUs(Number(text)) : parseDurationUs(text);
  if (us === undefined || (us === 0 && !allowZero)) throw commandLineError(option, `expected a duration, got "${text}"`, `e.g. ${option} 10s`);
  return us;
}

async function profileWithSample(file: string, set: string[], sample: string | undefined): Promise<Profile> {
  return withProductionSample(await loadProfile(file, set), sample);
}

/** The profile with `production:` figures derived from a CSV sample of production requests (when one is given). */
export function withProductionSample(profile: Profile, sample: string | undefined): Profile {
  if (sample === undefined) return profile;
  let text: string;
  try {
    text = readFileSync(sample, 'utf8');
  } catch {
    throw commandLineError('--production-sample', `cannot read ${sample}`, 'a CSV with a header: key, batch, value, time (any of them)');
  }
  return withProduction(profile, productionFromSample(text));
}

interface QualifyArgs {
  profile: string;
  set: string[];
  target?: string;
  out?: string;
  step: string;
  warmup: string;
  start?: number;
  growth: number;
  resolution: number;
  maxSteps: number;
  interval: string;
  productionSample?: string;
  quiet: boolean;
}

export async function qualifyCommand(args: QualifyArgs): Promise<number> {
  const profile = await profileWithSample(args.profile, args.set, args.productionSample);
  const stepUs = durationOption('--step', args.step);
  const warmupUs = durationOption('--warmup', args.warmup, true);
  const outDir = args.out ?? defaultRunDir('reports', profile.name, new Date()).replace(/([^/]+)$/, 'qualify-$1');
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  try {
    const q = await qualify(profile, {
      outDir,
      target: args.target,
      stepUs,
      warmupUs,
      intervalUs: durationOption('--interval', args.interval),
      growth: args.growth,
      resolution: args.resolution,
      maxSteps: args.maxSteps,
      ...(args.start !== undefined && { startRps: args.start }),
      signal: abort.signal,
      onStep: (s, i) => {
        if (!args.quiet) process.stderr.write(`step ${i + 1}: ${s.askedRps} rps → p99 ${formatUs(s.latencyUs.p99)}, errors ${(s.errorRate * 100).toFixed(2)}% ${s.pass ? 'pass' : 'FAIL'}\n`);
      },
    });
    const { markdown } = writeQualificationReports(outDir, q);
    process.stdout.write(args.quiet ? `${outDir}\n` : `${markdown}\nwritten to ${outDir}/\n`);
    if (abort.signal.aborted) return ExitCode.Interrupted;
    return q.verdict === 'PASS' ? ExitCode.Ok : ExitCode.SloFailed;
  } finally {
    process.off('SIGINT', onSignal);
  }
}

export async function lintCommand(args: { profile: string; set: string[]; productionSample?: string }): Promise<number> {
  const profile = await profileWithSample(args.profile, args.set, args.productionSample);
  const flags = realismFlags({ profile, plan: createSchedule(profile).plan });
  const invalid = flags.some((f) => f.severity === 'invalid');
  process.stdout.write(`# ${profile.name}: realism flags before a run${invalid ? ' (INVALID)' : ''}\n\n${flagsMarkdown(flags)}\n`);
  return invalid ? ExitCode.SloFailed : ExitCode.Ok;
}

/** Re-renders report.md and report.html of a run or qualification folder from its stored artifacts. */
export async function reportCommand(args: { dir: string; print: boolean }): Promise<number> {
  if (!isRunDir(args.dir)) throw commandLineError('<run-dir>', `no result.json or qualification.json in ${args.dir}`, 'give a folder written by stampede run or stampede qualify');
  let markdown: string;
  try {
    const qualificationFile = join(args.dir, 'qualification.json');
    const q = readQualification(qualificationFile);
    markdown = q ? writeQualificationReports(args.dir, q).markdown : await rerenderRun(args.dir);
  } catch (error) {
    if (error instanceof SyntaxError) throw commandLineError('<run-dir>', `unreadable artifacts in ${args.dir}: ${error.message}`, 'the folder holds a damaged result.json or qualification.json');
    throw error;
  }
  process.stdout.write(args.print ? markdown : `${join(args.dir, 'report.md')}\n${join(args.dir, 'report.html')}\n`);
  return ExitCode.Ok;
}

/** A run folder's reports again; a folder from before analysis.json is judged now and gets one. */
async function rerenderRun(dir: string): Promise<string> {
  const stored = readRunFolder(dir);
  let analysis = stored.analysis;
  if (!analysis) {
    if (!stored.profile) throw commandLineError('<run-dir>', `no analysis.json or profile.json in ${dir}`, 'the folder was not written by stampede run');
    analysis = analyseRun(stored.result, stored.profile);
    writeAnalysis(dir, analysis);
  }
  await renderReportsInto(dir, { result: stored.result, analysis, latencyLog: stored.latencyLog });
  return readFileSync(join(dir, RUN_FILES.reportMarkdown), 'utf8');
}

function readQualification(file: string): Qualification | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Qualification;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function compareCommand(args: { baseline: string; candidate: string; out?: string }): number {
  for (const dir of [args.baseline, args.candidate]) {
    if (!isRunDir(dir)) throw commandLineError('<dir>', `no result.json or qualification.json in ${dir}`, 'compare two folders written by stampede run or stampede qualify');
  }
  const comparison = compareRuns(loadSnapshot(args.baseline), loadSnapshot(args.candidate));
  const markdown = renderComparison(comparison);
  if (args.out) writeFileSync(args.out, markdown);
  process.stdout.write(markdown);
  return comparison.regressed ? ExitCode.SloFailed : ExitCode.Ok;
}

export function historyCommand(args: { dir: string; out?: string }): number {
  const dirs = findSnapshotDirs(args.dir);
  if (dirs.length === 0) throw commandLineError('<dir>', `no runs under ${args.dir}`, 'a folder of run or qualification folders, e.g. reports/nightly/');
  const { markdown, html } = renderHistory(dirs.map(loadSnapshot));
  const out = args.out ?? args.dir;
  writeFileSync(join(out, 'history.md'), markdown);
  writeFileSync(join(out, 'history.html'), html);
  process.stdout.write(`${markdown}\nwritten to ${join(out, 'history.md')} and history.html\n`);
  return ExitCode.Ok;
}

/** Registers qualify, lint, report, compare and history on the yargs instance. */
export function withCapacityCommands(cli: Argv, setExit: (code: number) => void): Argv {
  const profileArgs = (y: Argv) =>
    y
      .positional('profile', { type: 'string', demandOption: true, describe: 'profile YAML file' })
      .option('set', { type: 'string', array: true, default: [], describe: 'override a field: path=value (repeatable)' })
      .option('production-sample', { type: 'string', describe: 'CSV of production requests (key, batch, value, time) to derive production: from' });
  return cli
    .command(
      'qualify <profile>',
      'step the offered rate until the SLO breaks: capacity, knee, headroom, failover (N+1)',
      (y) =>
        profileArgs(y)
          .option('target', { type: 'string', describe: 'where the traffic goes (default: the profile’s target)' })
          .option('out', { type: 'string', describe: 'output folder (default reports/<profile>/qualify-<UTC time>/)' })
          .option('step', { type: 'string', default: '10s', describe: 'measured duration of each step' })
          .option('warmup', { type: 'string', default: '3s', describe: 'warm-up before each step' })
          .option('start', { type: 'number', describe: 'first rate, rps (default half the expected peak)' })
          .option('growth', { type: 'number', default: 1.5, describe: 'rate factor between steps until the SLO breaks' })
          .option('resolution', { type: 'number', default: 0.05, describe: 'bisect until pass and fail rates are this close (fraction)' })
          .option('max-steps', { type: 'number', default: 12, describe: 'most steps to run' })
          .option('interval', { type: 'string', default: '1s', describe: 'interval of the per-interval histograms and gauges' })
          .option('quiet', { type: 'boolean', default: false, describe: 'print only the output folder' }),
      async (args) => setExit(await qualifyCommand(args as never)),
    )
    .command('lint <profile>', 'show the realism flags knowable before a run', profileArgs, async (args) => setExit(await lintCommand(args as never)))
    .command(
      'report <dir>',
      're-render report.md and report.html of a run or qualification folder, without traffic',
      (y) => y.positional('dir', { type: 'string', demandOption: true }).option('print', { type: 'boolean', default: false, describe: 'print report.md' }),
      async (args) => setExit(await reportCommand(args as never)),
    )
    .command(
      'compare <baseline> <candidate>',
      'did latency, error rate or capacity regress? (exit 1 on a regression)',
      (y) =>
        y
          .positional('baseline', { type: 'string', demandOption: true })
          .positional('candidate', { type: 'string', demandOption: true })
          .option('out', { type: 'string', describe: 'also write the Markdown here' }),
      (args) => setExit(compareCommand(args as never)),
    )
    .command(
      'history <dir>',
      'trend table and charts (capacity and p99 per night) of a folder of runs',
      (y) => y.positional('dir', { type: 'string', demandOption: true }).option('out', { type: 'string', describe: 'folder for history.md and history.html (default <dir>)' }),
      (args) => setExit(historyCommand(args as never)),
    );
}
