import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, forceOption, productionSampleOption, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) =>
  forceOption(productionSampleOption(profileOptions(yargs)))
    .option('target', { type: 'string', describe: 'where the traffic goes (default: the profile’s target)' })
    .option('out', { type: 'string', describe: 'output folder (default reports/<profile>/qualify-<UTC time>/)' })
    .option('step', { type: 'string', default: '10s', describe: 'measured duration of each step' })
    .option('warmup', { type: 'string', default: '3s', describe: 'warm-up before each step' })
    .option('start', { type: 'number', describe: 'first rate, rps (default half the expected peak)' })
    .option('growth', { type: 'number', default: 1.5, describe: 'rate factor between steps until the SLO breaks' })
    .option('resolution', { type: 'number', default: 0.05, describe: 'bisect until pass and fail rates are this close (fraction)' })
    .option('max-steps', { type: 'number', default: 12, describe: 'most steps to run' })
    .option('interval', { type: 'string', default: '1s', describe: 'interval of the per-interval histograms and gauges' })
    .option('quiet', { type: 'boolean', default: false, describe: 'print only the output folder' });

export const qualify: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'qualify <profile>',
  describe: 'step the offered rate until the SLO breaks: capacity, knee, headroom, failover (N+1)',
  builder,
  async run(args) {
    const [input, { qualify }, { defaultRunDir }, { formatUs }, { writeQualificationReports }] = await Promise.all([
      import('../input.ts'),
      import('../../qualify/qualify.ts'),
      import('../../run-folder/index.ts'),
      import('../../analysis/format.ts'),
      import('../../report/qualification-report.ts'),
    ]);
    const target = input.targetOption(args.target);
    const profile = await input.loadProfileWithSample(args.profile, args.set, args.productionSample);
    const stepUs = input.durationOption('--step', args.step);
    const warmupUs = input.durationOption('--warmup', args.warmup, true);
    const intervalUs = input.durationOption('--interval', args.interval);
    const outDir = args.out ?? defaultRunDir('reports', profile.name, new Date()).replace(/([^/]+)$/, 'qualify-$1');
    const abort = new AbortController();
    const onSignal = () => abort.abort();
    process.once('SIGINT', onSignal);
    try {
      const q = await qualify(profile, {
        outDir,
        target,
        stepUs,
        warmupUs,
        intervalUs,
        growth: args.growth,
        resolution: args.resolution,
        maxSteps: args.maxSteps,
        ...(args.start !== undefined && { startRps: args.start }),
        signal: abort.signal,
        force: args.force,
        onStep: (s, i) => {
          if (!args.quiet)
            process.stderr.write(`step ${i + 1}: ${s.askedRps} rps → p99 ${formatUs(s.latencyUs.p99)}, errors ${(s.errorRate * 100).toFixed(2)}% ${s.pass ? 'pass' : 'FAIL'}\n`);
        },
      });
      const { markdown } = writeQualificationReports(outDir, q);
      process.stdout.write(args.quiet ? `${outDir}\n` : `${markdown}\nwritten to ${outDir}/\n`);
      if (abort.signal.aborted) return ExitCode.Interrupted;
      return q.verdict === 'PASS' ? ExitCode.Ok : ExitCode.SloFailed;
    } finally {
      process.off('SIGINT', onSignal);
    }
  },
};
