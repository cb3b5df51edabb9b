import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, checkTargetOption, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) => checkTargetOption(profileOptions(yargs));

export const validate: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'validate <profile>',
  describe: 'check a profile and print its resolved plan',
  example: ['stampede validate profiles/sudden-spike.yaml --set phases[0].rate=2000', 'check a profile with an override and print its plan'],
  builder,
  async run(args) {
    const [input, { loadProfile }, { requireTopologyFor }, { requireMemcachedKeysFor }, { createSchedule }, { renderPlan }, { planFigures, planRefusals }] = await Promise.all([
      import('../input.ts'),
      import('../../profile/load.ts'),
      import('../../profile/topology-required.ts'),
      import('../../profile/memcached-keys.ts'),
      import('../../schedule/index.ts'),
      import('../../report/plan.ts'),
      import('../../analysis/plan-check.ts'),
    ]);
    const option = input.targetOption(args.target);
    const profile = await loadProfile(args.profile, args.set);
    const { target } = input.effectiveTarget(option, profile);
    requireTopologyFor(profile, target);
    requireMemcachedKeysFor(profile, target);
    // The TLS files an https:// target names are read now, so a missing one fails validation (exit 2) as it would fail the run.
    await (await import('../../driver/index.ts')).checkDriverInput(target, profile);
    const plan = createSchedule(profile).plan;
    const figures = planFigures(profile, plan, { target });
    const refusals = planRefusals(figures, profile.limits);
    process.stdout.write(renderPlan(profile, plan, { figures, refusals }));
    // A plan `run` would refuse is bad input here too: CI validating profiles catches it first.
    return refusals.length > 0 ? ExitCode.InvalidInput : ExitCode.Ok;
  },
};
