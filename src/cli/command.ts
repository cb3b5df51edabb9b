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
  /** One typical invocation and what it does, shown under Examples in `--help`. */
  example: [command: string, description: string];
  builder(yargs: Argv): Argv<A>;
  /**
   * `signal` aborts on SIGINT or SIGTERM: the command stops its traffic and writes what it has; the
   * exit code then becomes 130 or 143 (main.ts).
   */
  run(args: ArgumentsCamelCase<A>, signal: AbortSignal): Promise<number | Lingering>;
  /** The command stops on a signal as its normal end (serve): no interruption handling, no 130/143. */
  ownsSignals?: true;
}

/**
 * A finished command that keeps serving a while: the metrics endpoint's linger, so Prometheus scrapes
 * the final figures. Its result is written and its exit code decided; main.ts sets that code, then
 * waits on `linger`, which SIGINT or SIGTERM ends at once without changing the code.
 */
export interface Lingering {
  readonly exitCode: number;
  /** Resolves when the linger is over, at once once `stop` aborts; what it kept open is closed by then. */
  linger(stop: AbortSignal): Promise<void>;
}

/** The parsed options a builder declares, e.g. ArgsOf<typeof builder>. */
export type ArgsOf<B extends (yargs: Argv) => Argv<unknown>> = B extends (yargs: Argv) => Argv<infer A> ? A : never;

/** `<profile>` and `--set`: the options of every command that loads a profile. */
export function profileOptions(yargs: Argv) {
  return yargs
    .positional('profile', { type: 'string', demandOption: true, describe: 'profile YAML file' })
    .option('set', { type: 'string', array: true, default: [] as string[], describe: 'override a field: path=value (repeatable)' });
}

/** `--target` of the commands that check a profile without running it: a real target needs no topology. */
export function checkTargetOption<T>(yargs: Argv<T>) {
  return yargs.option('target', { type: 'string', describe: 'the target to check the profile for (default: the profile’s target); a real target needs no topology' });
}

/** `--production-sample`, for the commands that show realism flags. */
export function productionSampleOption<T>(yargs: Argv<T>) {
  return yargs.option('production-sample', { type: 'string', describe: 'CSV of production requests (key, batch, value, time) to derive production: from' });
}

/** `--allow-remote`, for the commands that send traffic or connect out: loopback only unless a host is named. */
export function allowRemoteOption<T>(yargs: Argv<T>) {
  return yargs.option('allow-remote', {
    type: 'string',
    array: true,
    describe: 'HOST[,HOST]: allow traffic to these non-loopback hosts (also STAMPEDE_ALLOW_REMOTE)',
  });
}

/** `--progress`, `--metrics-port`, `--metrics-host`, `--metrics-linger`: watching a run while it lasts (and its final figures). */
export function liveOptions<T>(yargs: Argv<T>) {
  return yargs
    .option('progress', { type: 'boolean', describe: 'a status line per interval on stderr (default: in a terminal only; --progress prints plain lines elsewhere)' })
    .option('metrics-port', { type: 'number', describe: 'serve Prometheus metrics on this port while the run lasts' })
    .option('metrics-host', { type: 'string', default: '127.0.0.1', describe: 'address of the metrics endpoint (loopback only)' })
    .option('metrics-linger', {
      type: 'string',
      default: '15s',
      describe: 'keep the metrics endpoint up this long after the run, so Prometheus scrapes its final figures (0: no linger; Ctrl-C ends it)',
    });
}

/** `--junit FILE`, for the commands that judge a run (run, qualify); written by ci-outputs.ts. */
export function junitOption<T>(yargs: Argv<T>) {
  return yargs.option('junit', {
    type: 'string',
    describe: 'also write a JUnit XML report here (Ant schema): the verdict, each check, qualification step, recovery and realism flag a test case',
  });
}

/** `--csv`, for the commands that write a run or qualification folder (run, qualify); written by csv-outputs.ts. */
export function csvOption<T>(yargs: Argv<T>) {
  return yargs.option('csv', { type: 'boolean', default: false, describe: 'also write intervals.csv and summary.csv (qualify: and steps.csv) into the output folder' });
}

/** `--force`, for the commands the plan check guards (run, qualify, sweep). */
export function forceOption<T>(yargs: Argv<T>) {
  return yargs.option('force', { type: 'boolean', default: false, describe: 'run a plan over the profile’s limits: (requests, batch, intervals, memory, duration) anyway' });
}
