import type { ArgumentsCamelCase, Argv } from 'yargs';

/**
 * One CLI command: its yargs definition and what it does. `run` returns the exit code; main.ts adapts
 * it into a yargs CommandModule. A command file imports only yargs types and light helpers at the
 * top; `run` loads the implementation with dynamic imports, so `stampede --help` and `--version` do
 * not load the model, the drivers or the report renderers.
 */
export interface StampedeCommand<A> {
  command: string;
  describe: string;
  builder(yargs: Argv): Argv<A>;
  run(args: ArgumentsCamelCase<A>): Promise<number>;
}

/** The parsed options a builder declares, e.g. ArgsOf<typeof builder>. */
export type ArgsOf<B extends (yargs: Argv) => Argv<unknown>> = B extends (yargs: Argv) => Argv<infer A> ? A : never;

/** `<profile>` and `--set`: the options of every command that loads a profile. */
export function profileOptions(yargs: Argv) {
  return yargs
    .positional('profile', { type: 'string', demandOption: true, describe: 'profile YAML file' })
    .option('set', { type: 'string', array: true, default: [] as string[], describe: 'override a field: path=value (repeatable)' });
}

/** `--production-sample`, for the commands that show realism flags. */
export function productionSampleOption<T>(yargs: Argv<T>) {
  return yargs.option('production-sample', { type: 'string', describe: 'CSV of production requests (key, batch, value, time) to derive production: from' });
}

/** `--force`, for the commands the plan check guards (run, qualify, sweep). */
export function forceOption<T>(yargs: Argv<T>) {
  return yargs.option('force', { type: 'boolean', default: false, describe: 'run a plan over the profile’s limits: (requests, batch, intervals, memory, duration) anyway' });
}
