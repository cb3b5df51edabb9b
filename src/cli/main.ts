import yargs, { type Argv } from 'yargs';
import { RunStartError } from '../driver/index.ts';
import { ProfileError, formatProfileError } from '../profile/index.ts';
import { runCommand, schemaCommand, validateCommand } from './commands.ts';
import { ExitCode } from './exit-codes.ts';

/** Parses argv, runs one command, returns the exit code. The only place that turns errors into codes. */
export async function main(argv: string[]): Promise<number> {
  let exitCode: number = ExitCode.Ok;
  const setExit = (code: number) => (exitCode = code);
  const cli = withCommands(yargs(argv), setExit)
    .scriptName('stampede')
    .strict()
    .demandCommand(1, 'name a command: run, validate or schema')
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
          .option('quiet', { type: 'boolean', default: false, describe: 'print only the output folder' }),
      async (args) => setExit(await runCommand(args as never)),
    )
    .command('validate <profile>', 'check a profile and print its resolved plan', profileArgs, async (args) => setExit(await validateCommand(args as never)))
    .command('schema', 'print the JSON Schema of the profile format (for editor completion)', {}, () => setExit(schemaCommand()));
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
