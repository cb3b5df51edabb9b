import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) =>
  profileOptions(yargs.positional('format', { choices: ['k6'] as const, demandOption: true, describe: 'what to export to: k6 (a TypeScript script typed with @types/k6)' }))
    .option('out', { alias: 'o', type: 'string', describe: 'write the script here (default: stdout)' })
    .option('target', { type: 'string', describe: 'the HTTP target the script aims at (default: the profile’s; TARGET overrides it at run time)' });

export const exportCommand: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'export <format> <profile>',
  describe: 'export a profile to another load generator (k6: arrival-rate scenarios, the mix, keys, sizes, templates, the SLO as thresholds)',
  example: ['stampede export k6 profiles/bluesky-20k-batch-http.yaml --target http://127.0.0.1:8080 -o bluesky.ts', 'a k6 script of the profile'],
  builder,
  async run(args) {
    const [{ loadProfile }, { exportK6Script }, { writeFileSync }, { asWriteError }] = await Promise.all([
      import('../../profile/load.ts'),
      import('../../interop/k6/export/index.ts'),
      import('node:fs'),
      import('../../run-folder/write-errors.ts'),
    ]);
    const profile = await loadProfile(args.profile, args.set);
    const script = exportK6Script(profile, { target: args.target, source: args.profile });
    if (args.out === undefined) process.stdout.write(script);
    else {
      try {
        writeFileSync(args.out, script);
      } catch (error) {
        // A folder that is missing or not ours, a full disk: the script could not be written (exit 3).
        throw asWriteError(args.out, error);
      }
      process.stderr.write(`stampede: wrote ${args.out} (k6 run -e TARGET=http://host:port ${args.out})\n`);
    }
    return ExitCode.Ok;
  },
};
