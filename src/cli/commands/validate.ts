import { type StampedeCommand, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

export const validate: StampedeCommand<{ profile: string; set: string[] }> = {
  command: 'validate <profile>',
  describe: 'check a profile and print its resolved plan',
  example: ['stampede validate profiles/sudden-spike.yaml --set phases[0].rate=2000', 'check a profile with an override and print its plan'],
  builder: profileOptions,
  async run(args) {
    const [{ loadProfile }, { createSchedule }, { renderPlan }, { planFigures, planRefusals }] = await Promise.all([
      import('../../profile/load.ts'),
      import('../../schedule/index.ts'),
      import('../../report/plan.ts'),
      import('../../analysis/plan-check.ts'),
    ]);
    const profile = await loadProfile(args.profile, args.set);
    const plan = createSchedule(profile).plan;
    const figures = planFigures(profile, plan);
    const refusals = planRefusals(figures, profile.limits);
    process.stdout.write(renderPlan(profile, plan, { figures, refusals }));
    // A plan `run` would refuse is bad input here too: CI validating profiles catches it first.
    return refusals.length > 0 ? ExitCode.InvalidInput : ExitCode.Ok;
  },
};
