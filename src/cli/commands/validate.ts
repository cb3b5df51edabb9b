import { type StampedeCommand, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

export const validate: StampedeCommand<{ profile: string; set: string[] }> = {
  command: 'validate <profile>',
  describe: 'check a profile and print its resolved plan',
  example: ['stampede validate profiles/sudden-spike.yaml --set phases[0].rate=2000', 'check a profile with an override and print its plan'],
  builder: profileOptions,
  async run(args) {
    const [{ loadProfile }, { createSchedule }, { renderPlan }] = await Promise.all([
      import('../../profile/load.ts'),
      import('../../schedule/index.ts'),
      import('../../report/plan.ts'),
    ]);
    const profile = await loadProfile(args.profile, args.set);
    process.stdout.write(renderPlan(profile, createSchedule(profile).plan));
    return ExitCode.Ok;
  },
};
