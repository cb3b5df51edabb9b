import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, checkTargetOption, productionSampleOption, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) => checkTargetOption(productionSampleOption(profileOptions(yargs)));

export const lint: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'lint <profile>',
  describe: 'show the realism flags knowable before a run',
  example: ['stampede lint profiles/viral-hot-key.yaml --production-sample prod.csv', 'realism flags before a run, against a production sample'],
  builder,
  async run(args) {
    const [{ loadProfileWithSample, targetOption }, { requireTopologyFor }, { realismFlags }, { createSchedule }, { flagsMarkdown }] = await Promise.all([
      import('../input.ts'),
      import('../../profile/topology-required.ts'),
      import('../../analysis/realism/index.ts'),
      import('../../schedule/index.ts'),
      import('../../report/flags.ts'),
    ]);
    const option = targetOption(args.target);
    const loaded = await loadProfileWithSample(args.profile, args.set, args.productionSample);
    // The flags judge the profile as it would run: on the target --target names, if any.
    const profile = option === undefined ? loaded : { ...loaded, target: option };
    requireTopologyFor(profile, profile.target);
    const flags = realismFlags({ profile, plan: createSchedule(profile).plan });
    const invalid = flags.some((f) => f.severity === 'invalid');
    process.stdout.write(`# ${profile.name}: realism flags before a run${invalid ? ' (INVALID)' : ''}\n\n${flagsMarkdown(flags)}\n`);
    return invalid ? ExitCode.SloFailed : ExitCode.Ok;
  },
};
