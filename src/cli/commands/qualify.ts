import { performance } from 'node:perf_hooks';
import type { Argv } from 'yargs';
import { allowRemoteOption, type ArgsOf, csvOption, type StampedeCommand, forceOption, junitOption, liveOptions, productionSampleOption, profileOptions } from '../command.ts';
import { exitCodeOf } from '../exit-codes.ts';
import { allowedRemoteHosts, numberOption, optionalNumberOption } from '../options.ts';
import type { StepOutcome } from '../../analysis/qualification.ts';

const builder = (yargs: Argv) =>
  csvOption(forceOption(junitOption(liveOptions(allowRemoteOption(productionSampleOption(profileOptions(yargs)))))))
    .option('target', { type: 'string', describe: 'where the traffic goes (default: the profile’s target)' })
    .option('out', { type: 'string', describe: 'output folder (default reports/<profile>/qualify-<UTC time>/)' })
    .option('step', { type: 'string', default: '10s', describe: 'measured duration of each step' })
    .option('warmup', { type: 'string', default: '3s', describe: 'warm-up before each step' })
    .option('start', { type: 'string', describe: 'first rate, rps > 0 (default half the expected peak)' })
    .option('growth', { type: 'string', default: '1.5', describe: `rate factor between steps until the SLO breaks (> 1, ≤ ${MAX_GROWTH})` })
    .option('resolution', { type: 'string', default: '0.05', describe: 'bisect until pass and fail rates are this close (a fraction in (0, 1))' })
    .option('max-steps', { type: 'string', default: '16', describe: `most steps to run (1–${MAX_STEPS})` })
    .option('repeats', { type: 'string', default: '2', describe: `steps at each rate that decides the capacity, judged together (1–${MAX_REPEATS})` })
    .option('interval', { type: 'string', default: '1s', describe: 'interval of the per-interval histograms and gauges' })
    .option('quiet', { type: 'boolean', default: false, describe: 'print only the output folder' });

/** A step multiplies the rate by at most this: beyond it the first failing step says little about where the limit is. */
const MAX_GROWTH = 10;
/** Most steps of one qualification: bisection to 1% from a 1.5 growth takes ~20; this bounds a typo. */
const MAX_STEPS = 100;
/** Most repeats of a deciding rate: beyond a handful, longer steps say more than more of them. */
const MAX_REPEATS = 10;

/** " (repeat)", " (re-run of step 4)": why the search ran a step that is not plain searching. */
function stepPurpose(s: StepOutcome): string {
  if (s.rerunOf !== undefined) return ` (re-run of step ${s.rerunOf})`;
  return s.purpose === 'repeat' ? ' (repeat)' : '';
}

/** The step's judgement; a step the generator limited, or whose failure sat in one interval, says so, and whether the search re-runs it next. */
function stepJudged(s: StepOutcome, rerunNext: boolean, formatUs: (us: number) => string): string {
  if (s.interrupted) return 'interrupted: not judged';
  const again = rerunNext ? ': re-running it' : '';
  if (s.generatorLimited) return `${s.pass ? 'pass' : 'FAIL'}, but the generator limited it${again}`;
  if (s.pass) return 'pass';
  if (!s.spoiledBy) return 'FAIL';
  return `FAIL, spoiled by one interval at t=${formatUs(s.spoiledBy.tMs * 1000)} (${s.spoiledBy.detail})${again}`;
}

export const qualify: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'qualify <profile>',
  describe: 'step the offered rate until the SLO breaks: capacity, knee, headroom, failover (N+1)',
  example: ['stampede qualify profiles/black-friday.yaml --step 5s --out reports/nightly/$(date +%F)', 'find capacity, knee and headroom into a dated folder'],
  builder,
  async run(args, signal, outputs) {
    const [
      input,
      { qualify },
      { createNewRunDir, defaultRunDir, writeReports },
      { formatUs },
      { renderQualificationReports },
      { startLiveView },
      { verdictLine },
      { writeQualificationCiOutputs },
    ] = await Promise.all([
      import('../input.ts'),
      import('../../qualify/qualify.ts'),
      import('../../run-folder/index.ts'),
      import('../../analysis/format.ts'),
      import('../../report/qualification-report.ts'),
      import('../live.ts'),
      import('../../report/summary.ts'),
      import('../ci-outputs.ts'),
    ]);
    const target = input.targetOption(args.target);
    const stepUs = input.durationOption('--step', args.step);
    const warmupUs = input.durationOption('--warmup', args.warmup, true);
    const intervalUs = input.durationOption('--interval', args.interval);
    const search = {
      growth: numberOption('--growth', args.growth, { above: 1, max: MAX_GROWTH, example: '1.5' }),
      resolution: numberOption('--resolution', args.resolution, { above: 0, below: 1, example: '0.05' }),
      maxSteps: numberOption('--max-steps', args.maxSteps, { min: 1, max: MAX_STEPS, integer: true, example: '16' }),
      repeats: numberOption('--repeats', args.repeats, { min: 1, max: MAX_REPEATS, integer: true, example: '2' }),
      startRps: optionalNumberOption('--start', args.start, { above: 0, example: '1000' }),
    };
    const profile = await input.loadProfileWithSample(args.profile, args.set, args.productionSample);
    const { target: sendTo, from } = input.effectiveTarget(target, profile);
    await input.checkRunnable(profile, sendTo);
    const remote = input.guardTarget(sendTo, allowedRemoteHosts(args.allowRemote, process.env.STAMPEDE_ALLOW_REMOTE), from);
    if (remote.length > 0) process.stderr.write(input.remoteNotice(remote));
    const outDir = args.out ?? createNewRunDir(defaultRunDir('reports', profile.name, new Date(), 'qualify-'));
    const live = await startLiveView(args);
    let stepsDone = 0;
    // Each step's wall time, for its JUnit case: from the end of the one before (its setup and files included).
    const stepWallMs: number[] = [];
    let stepStartMs = performance.now();
    try {
      const q = await qualify(profile, {
        outDir,
        target: sendTo,
        stepUs,
        warmupUs,
        intervalUs,
        growth: search.growth,
        resolution: search.resolution,
        maxSteps: search.maxSteps,
        repeats: search.repeats,
        ...(search.startRps !== undefined && { startRps: search.startRps }),
        signal,
        force: args.force,
        env: process.env,
        outputs,
        onStep: (s, i, next) => {
          stepsDone = i + 1;
          const now = performance.now();
          stepWallMs.push(now - stepStartMs);
          stepStartMs = now;
          if (args.quiet) return;
          live.progress.line(
            `step ${i + 1}: ${s.askedRps} rps${stepPurpose(s)} → p99 ${formatUs(s.latencyUs.p99)}, errors ${(s.errorRate * 100).toFixed(2)}% ${stepJudged(s, 'rerunOf' in next && next.rerunOf === i + 1, formatUs)}`,
          );
        },
        onInterval: live.observer(() => `step ${stepsDone + 1}`),
      });
      live.progress.end();
      const reports = renderQualificationReports(q);
      writeReports(outDir, reports, outputs);
      writeQualificationCiOutputs(q, outDir, args.junit, stepWallMs, outputs);
      if (args.csv) {
        const { writeCsvExports } = await import('../csv-outputs.ts');
        await writeCsvExports(outDir, outputs);
      }
      process.stdout.write(args.quiet ? `${outDir}\n` : `${reports.markdown}\nwritten to ${outDir}/\n${verdictLine(q.verdict, q.reasons)}\n`);
      return await live.finish(exitCodeOf(q));
    } finally {
      await live.close();
    }
  },
};
