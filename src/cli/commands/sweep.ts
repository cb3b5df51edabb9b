import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, forceOption, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) =>
  forceOption(profileOptions(yargs))
    .option('vary', { type: 'string', array: true, demandOption: true, describe: 'path=a..b (--steps values) or path=v1,v2,… (once or twice)' })
    .option('steps', { type: 'number', default: 5, describe: 'values per a..b range' })
    .option('window', { type: 'string', describe: 'judge recovery on requests started in from..to (default: the last quarter of the run)' })
    .option('parallel', { type: 'number', describe: 'worker threads (default: available cores)' })
    .option('json', { type: 'boolean', default: false, describe: 'print the result as JSON' });

/** `stampede sweep <profile> --vary path=a..b [--vary …]`: the model over a grid, recovered or not per point. */
export const sweep: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'sweep <profile>',
  describe: 'run the model over a grid of one or two parameters and report where the system recovers',
  builder,
  async run(args) {
    const [{ sweep, renderSweep }, { loadProfile }, { commandLineError }, { parseDurationUs }] = await Promise.all([
      import('../../sweep/sweep.ts'),
      import('../../profile/load.ts'),
      import('../input.ts'),
      import('../../profile/units.ts'),
    ]);
    let windowS: [number, number] | null = null;
    if (args.window !== undefined) {
      const [a, b] = args.window.split('..').map((t) => parseDurationUs(t.trim()));
      if (a === undefined || b === undefined || !(b > a)) throw commandLineError('--window', `expected from..to, got "${args.window}"`, 'e.g. --window 60s..90s');
      windowS = [a / 1e6, b / 1e6];
    }
    // Fail on a bad profile before starting workers.
    await loadProfile(args.profile, args.set);
    const result = await sweep({
      profilePath: args.profile,
      vary: args.vary,
      set: args.set,
      steps: args.steps,
      windowS,
      parallel: args.parallel,
      force: args.force,
      onPoint: process.stderr.isTTY ? (done, total) => process.stderr.write(`\r${done}/${total} points${done === total ? '\n' : ''}`) : undefined,
    });
    process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : renderSweep(result));
    return ExitCode.Ok;
  },
};
