import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, forceOption, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';
import { numberOption, optionalNumberOption, optionError } from '../options.ts';

const builder = (yargs: Argv) =>
  forceOption(profileOptions(yargs))
    .option('vary', { type: 'string', array: true, demandOption: true, describe: 'path=a..b (--steps values) or path=v1,v2,… (once or twice)' })
    .option('steps', { type: 'string', default: '5', describe: `values per a..b range (2–${MAX_STEPS})` })
    .option('window', { type: 'string', describe: 'judge recovery on requests started in from..to (default: the last quarter of the run)' })
    .option('parallel', { type: 'string', describe: 'worker threads (default: available cores)' })
    .option('json', { type: 'boolean', default: false, describe: 'print the result as JSON' })
    .option('progress', { type: 'boolean', describe: 'a line per finished point on stderr (default: in a terminal only, rewritten in place)' })
    .option('quiet', { type: 'boolean', default: false, describe: 'no progress on stderr' });

/** Values per range: a finer grid than this is a typo, and every point is a whole model run. */
const MAX_STEPS = 100;
/** Grid points of one sweep (two axes multiply): bounds the run time of a mistyped sweep. */
const MAX_POINTS = 1000;

/** `stampede sweep <profile> --vary path=a..b [--vary …]`: the model over a grid, recovered or not per point. */
export const sweep: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'sweep <profile>',
  describe: 'run the model over a grid of one or two parameters and report where the system recovers',
  example: ['stampede sweep profiles/viral-hot-key.yaml --vary keys.hot[0].peak=0.1..0.5', 'where does the system stop recovering as the hot key grows?'],
  builder,
  async run(args, signal) {
    const [{ sweep, renderSweep }, { parseAxis }, { loadProfile }, { requireTopology }, { ProfileError }, { commandLineError, durationOption }, { Progress, progressMode }] =
      await Promise.all([
        import('../../sweep/sweep.ts'),
        import('../../sweep/grid.ts'),
        import('../../profile/load.ts'),
        import('../../profile/topology-required.ts'),
        import('../../profile/issues.ts'),
        import('../input.ts'),
        import('../progress.ts'),
      ]);
    if (args.vary.length > 2) throw optionError('--vary', `given ${args.vary.length} times; a sweep has one or two axes`, 'e.g. --vary phases[0].rate=100..900');
    const steps = numberOption('--steps', args.steps, { min: 2, max: MAX_STEPS, integer: true, example: '5' });
    const parallel = optionalNumberOption('--parallel', args.parallel, { min: 1, max: 64, integer: true, example: '2' });
    let windowS: [number, number] | null = null;
    if (args.window !== undefined) {
      // Each end like every other duration: "60s", "1m", or bare seconds "60".
      const ends = args.window.split('..');
      const [a, b] = ends.length === 2 ? ends.map((t) => durationOption('--window', t, true)) : [];
      if (a === undefined || b === undefined || !(b > a)) throw commandLineError('--window', `expected from..to, got "${args.window}"`, 'e.g. --window 60s..90s or 60..90');
      windowS = [a / 1e6, b / 1e6];
    }
    const progress = new Progress(process.stderr, progressMode(args, process.stderr.isTTY === true));
    const axes = args.vary.map((spec) => parseAxis(spec, steps));
    const points = axes.reduce((n, axis) => n * axis.values.length, 1);
    if (points > MAX_POINTS) throw optionError('--vary', `${points} grid points; at most ${MAX_POINTS}`, 'fewer --steps or values');
    // Fail on a bad profile, path or value before starting workers: every value of each axis, the others at their first.
    // A sweep runs on the model: a profile for a real target only (no topology) is refused here.
    requireTopology(await loadProfile(args.profile, args.set));
    const first = axes.map((axis) => `${axis.path}=${axis.values[0]}`);
    for (const [a, axis] of axes.entries()) {
      for (const value of axis.values) {
        const overrides = [...args.set, ...first.map((o, b) => (b === a ? `${axis.path}=${value}` : o))];
        try {
          await loadProfile(args.profile, overrides);
        } catch (error) {
          if (!(error instanceof ProfileError)) throw error;
          const issue = error.issues[0]!;
          throw optionError(
            `--vary ${args.vary[a]}`,
            `${axis.path}=${value}: ${issue.path ? `${issue.path}: ` : ''}${issue.message.replace(/ \(from --set [^)]*\)$/, '')}`,
            issue.hint,
          );
        }
      }
    }
    process.stderr.write('sweep: running the grid (Ctrl-C stops it and prints the points done)\n');
    const result = await sweep({
      profilePath: args.profile,
      vary: args.vary,
      set: args.set,
      steps,
      windowS,
      parallel,
      onPoint: (done, total, point) =>
        progress.status(`point ${done}/${total}: ${point.overrides.slice(args.set.length).join(' ')} ${point.verdict} ${(point.success * 100).toFixed(1)}%`),
      signal,
      force: args.force,
    });
    progress.end();
    process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : renderSweep(result));
    return result.partial ? ExitCode.Interrupted : ExitCode.Ok;
  },
};
