import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, forceOption, productionSampleOption, profileOptions } from '../command.ts';
import { exitCodeOf } from '../exit-codes.ts';

const builder = (yargs: Argv) =>
  forceOption(productionSampleOption(profileOptions(yargs)))
    .option('out', { type: 'string', describe: 'output folder (default reports/<profile>/<UTC time>/)' })
    .option('target', { type: 'string', describe: 'where the traffic goes (default: the profile’s target, "model")' })
    .option('seed', { type: 'number', describe: 'shorthand for --set seed=N' })
    .option('interval', { type: 'string', default: '1s', describe: 'interval of the per-interval histograms and gauges' })
    .option('quiet', { type: 'boolean', default: false, describe: 'print only the output folder' })
    .option('workers', { type: 'number', describe: 'real targets: send from N worker threads, each a disjoint slice of the schedule' });

export const run: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'run <profile>',
  describe: 'run a profile and write reports/<profile>/<time>/',
  builder,
  async run(args) {
    const [{ durationOption, loadProfileWithSample, targetOption }, { runProfile }] = await Promise.all([import('../input.ts'), import('../../pipeline/run.ts')]);
    const target = targetOption(args.target);
    const overrides = args.seed === undefined ? args.set : [...args.set, `seed=${args.seed}`];
    const profile = await loadProfileWithSample(args.profile, overrides, args.productionSample);
    const intervalUs = durationOption('--interval', args.interval);
    const abort = new AbortController();
    const onSignal = () => abort.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const { analysis, summary, dir } = await runProfile(profile, { outDir: args.out, target, intervalUs, signal: abort.signal, workers: args.workers, force: args.force });
      process.stdout.write(args.quiet ? `${dir}\n` : `${summary}\nwritten to ${dir}/\n${analysis.verdict}\n`);
      return exitCodeOf(analysis);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
