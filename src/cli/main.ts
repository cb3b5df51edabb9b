import yargs, { type Argv } from 'yargs';
import { RunStartError } from '../driver/index.ts';
import { ProfileError, formatProfileError } from '../profile/index.ts';
import { runCommand, schemaCommand, serveCommand, sweepCommand, validateCommand } from './commands.ts';
import { withCapacityCommands } from './capacity-commands.ts';
import { ExitCode } from './exit-codes.ts';

/** Parses argv, runs one command, returns the exit code. The only place that turns errors into codes. */
export async function main(argv: string[]): Promise<number> {
  let exitCode: number = ExitCode.Ok;
  const setExit = (code: number) => (exitCode = code);
  const cli = withCapacityCommands(withCommands(yargs(argv), setExit), setExit)
    .scriptName('stampede')
    .strict()
    .demandCommand(1, 'name a command (see --help)')
    .help()
    .version(false)
    .fail((message, error) => {
      if (error) throw error;
      process.stderr.write(`stampede: ${message}\nRun stampede --help for usage.\n`);
      exitCode = ExitCode.InvalidInput;
    });
  try {
    await cli.parseAsync();
  } catch (error) {
    return reportError(error);
  }
  return exitCode;
}

function withCommands(cli: Argv, setExit: (code: number) => void): Argv {
  const profileArgs = (y: Argv) =>
    y
      .positional('profile', { type: 'string', demandOption: true, describe: 'profile YAML file' })
      .option('set', { type: 'string', array: true, default: [], describe: 'override a field: path=value (repeatable)' });
  return cli
    .command(
      'run <profile>',
      'run a profile and write reports/<profile>/<time>/',
      (y) =>
        profileArgs(y)
          .option('out', { type: 'string', describe: 'output folder (default reports/<profile>/<UTC time>/)' })
          .option('target', { type: 'string', describe: 'where the traffic goes (default: the profile’s target, "model")' })
          .option('seed', { type: 'number', describe: 'shorthand for --set seed=N' })
          .option('interval', { type: 'string', default: '1s', describe: 'interval of the per-interval histograms and gauges' })
          .option('quiet', { type: 'boolean', default: false, describe: 'print only the output folder' })
          .option('production-sample', { type: 'string', describe: 'CSV of production requests (key, batch, value, time): production: for the realism flags' })
          .option('workers', { type: 'number', describe: 'real targets: send from N worker threads, each a disjoint slice of the schedule' }),
      async (args) => setExit(await runCommand(args as never)),
    )
    .command('validate <profile>', 'check a profile and print its resolved plan', profileArgs, async (args) => setExit(await validateCommand(args as never)))
    .command(
      'sweep <profile>',
      'run the model over a grid of one or two parameters and report where the system recovers',
      (y) =>
        profileArgs(y)
          .option('vary', { type: 'string', array: true, demandOption: true, describe: 'path=a..b (--steps values) or path=v1,v2,… (once or twice)' })
          .option('steps', { type: 'number', default: 5, describe: 'values per a..b range' })
          .option('window', { type: 'string', describe: 'judge recovery on requests started in from..to (default: the last quarter of the run)' })
          .option('parallel', { type: 'number', describe: 'worker threads (default: available cores)' })
          .option('json', { type: 'boolean', default: false, describe: 'print the result as JSON' }),
      async (args) => setExit(await sweepCommand(args as never)),
    )
    .command('schema', 'print the JSON Schema of the profile format (for editor completion)', {}, () => setExit(schemaCommand()))
    .command(
      'serve <service>',
      'run a real target on 127.0.0.1: `reference` is a getPostRecord batch lookup over memcached',
      (y) =>
        y
          .positional('service', { type: 'string', choices: ['reference'], demandOption: true })
          .option('port', { type: 'number', default: 8080, describe: 'port on 127.0.0.1 (0 = any free port)' })
          .option('memcached', { type: 'string', default: '127.0.0.1:11211', describe: 'memcached host:port' })
          .option('limit', { type: 'string', default: 'inf', describe: 'lookups of one request in flight at once (errgroup.SetLimit), or inf' })
          .option('pool-max-open', { type: 'number', default: 512, describe: 'memcached connections open at most' })
          .option('pool-max-idle', { type: 'number', default: 100, describe: 'idle memcached connections kept; the rest close after use' })
          .option('checkout-timeout', { type: 'string', default: '100ms', describe: 'how long a lookup waits for a memcached connection' })
          .option('store-delay', { type: 'string', default: '1ms', describe: 'backing-store latency per missed URI' }),
      async (args) => setExit(await serveCommand(args as never)),
    );
}

function reportError(error: unknown): number {
  if (error instanceof ProfileError) {
    process.stderr.write(formatProfileError(error) + '\n');
    return ExitCode.InvalidInput;
  }
  if (error instanceof RunStartError) {
    process.stderr.write(`stampede: could not start: ${error.message}\n`);
    return ExitCode.CouldNotStart;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`stampede: internal error: ${message}\n`);
  if (process.env.STAMPEDE_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return ExitCode.CouldNotStart;
}
