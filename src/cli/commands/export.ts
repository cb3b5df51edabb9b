import type { Argv } from 'yargs';
import type { ArgsOf, StampedeCommand } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';
import { optionError } from '../options.ts';

const builder = (yargs: Argv) =>
  yargs
    .positional('format', {
      choices: ['k6', 'csv'] as const,
      demandOption: true,
      describe: 'k6: the profile as a TypeScript script typed with @types/k6; csv: a run or qualification folder as intervals.csv, summary.csv (and steps.csv)',
    })
    .positional('source', { type: 'string', demandOption: true, describe: 'k6: a profile YAML file; csv: a folder written by stampede run or qualify' })
    .option('set', { type: 'string', array: true, default: [] as string[], describe: 'k6: override a profile field: path=value (repeatable)' })
    .option('out', { alias: 'o', type: 'string', describe: 'k6: write the script here (default: stdout); csv: the folder for the CSV files (default: the source folder)' })
    .option('target', { type: 'string', describe: 'k6: the HTTP target the script aims at (default: the profile’s; TARGET overrides it at run time)' });

export const exportCommand: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'export <format> <source>',
  describe: 'export a profile to another load generator (k6: arrival-rate scenarios, the mix, keys, sizes, templates, the SLO as thresholds), or a run’s figures as CSV',
  example: ['stampede export k6 profiles/bluesky-20k-batch-http.yaml --target http://127.0.0.1:8080 -o bluesky.ts', 'a k6 script of the profile'],
  builder,
  async run(args) {
    if (args.format === 'csv') {
      for (const [given, option] of [
        [args.set.length > 0, '--set'],
        [args.target !== undefined, '--target'],
      ] as const)
        if (given) throw optionError(option, 'applies to export k6, not to a run folder', `drop ${option}`);
      const { writeCsvExports } = await import('../csv-outputs.ts');
      const written = await writeCsvExports(args.source, args.out);
      process.stderr.write(`stampede: wrote ${written.join(', ')}\n`);
      return ExitCode.Ok;
    }
    const [{ loadProfile }, { exportK6Script }, { writeFileSync }, { asWriteError }] = await Promise.all([
      import('../../profile/load.ts'),
      import('../../interop/k6/export/index.ts'),
      import('node:fs'),
      import('../../run-folder/write-errors.ts'),
    ]);
    const profile = await loadProfile(args.source, args.set);
    const script = exportK6Script(profile, { target: args.target, source: args.source });
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
