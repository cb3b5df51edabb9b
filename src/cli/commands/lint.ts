import type { ArgumentsCamelCase, Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, checkTargetOption, productionSampleOption, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) => checkTargetOption(productionSampleOption(profileOptions(yargs)));

type LintArgs = ArgumentsCamelCase<ArgsOf<typeof builder>>;

/** A k6 script rather than a profile: k6 runs JavaScript and TypeScript. */
const K6_SCRIPT = /\.(js|mjs|cjs|ts|mts)$/i;

export const lint: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'lint <profile>',
  describe: 'show the realism flags knowable before a run, of a profile or of a k6 script (.js, .ts)',
  example: ['stampede lint profiles/viral-hot-key.yaml --production-sample prod.csv', 'realism flags before a run, against a production sample'],
  builder,
  async run(args) {
    const [{ flagsMarkdown }, subject] = await Promise.all([import('../../report/flags.ts'), K6_SCRIPT.test(args.profile) ? k6ScriptFlags(args) : profileFlags(args)]);
    const invalid = subject.flags.some((f) => f.severity === 'invalid');
    process.stdout.write(`# ${subject.title}: realism flags before a run${invalid ? ' (INVALID)' : ''}\n\n${flagsMarkdown(subject.flags)}\n`);
    return invalid ? ExitCode.SloFailed : ExitCode.Ok;
  },
};

async function profileFlags(args: LintArgs) {
  const [{ effectiveTarget, loadProfileWithSample, targetOption }, { requireTopologyFor }, { realismFlags }, { createSchedule }] = await Promise.all([
    import('../input.ts'),
    import('../../profile/topology-required.ts'),
    import('../../analysis/realism/index.ts'),
    import('../../schedule/index.ts'),
  ]);
  const loaded = await loadProfileWithSample(args.profile, args.set, args.productionSample);
  const { target } = effectiveTarget(targetOption(args.target), loaded);
  // The flags judge the profile as it would run: on the target --target names, if any.
  const profile = { ...loaded, target: target.text };
  requireTopologyFor(profile, target);
  return { title: profile.name, flags: realismFlags({ profile, plan: createSchedule(profile).plan }) };
}

/**
 * A k6 script's options, read by running its init code in the sandbox against stand-in k6 modules
 * (no network, no host object); `__ENV` is this process's environment, as `k6 run` gives it; its
 * imports and open() reach files under its own folder or the working directory.
 */
async function k6ScriptFlags(args: LintArgs) {
  const [{ lintK6Script }, { K6ScriptError }, { CommandLineError }] = await Promise.all([
    import('../../interop/k6/lint/index.ts'),
    import('../../interop/k6/errors.ts'),
    import('../errors.ts'),
  ]);
  if (args.set.length > 0 || args.productionSample !== undefined || args.target !== undefined)
    throw new CommandLineError('--set, --target and --production-sample apply to profiles, not to k6 scripts');
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  try {
    return { title: `${args.profile} (k6 script)`, flags: await lintK6Script(args.profile, env, [process.cwd()]) };
  } catch (error) {
    if (error instanceof K6ScriptError) throw new CommandLineError(error.message);
    throw error;
  }
}
