import { readFileSync } from 'node:fs';
import yargs, { type Argv, type CommandModule } from 'yargs';
import type { StampedeCommand } from './command.ts';
import { compare } from './commands/compare.ts';
import { history } from './commands/history.ts';
import { lint } from './commands/lint.ts';
import { qualify } from './commands/qualify.ts';
import { report } from './commands/report.ts';
import { run } from './commands/run.ts';
import { schema } from './commands/schema.ts';
import { serve } from './commands/serve.ts';
import { sweep } from './commands/sweep.ts';
import { validate } from './commands/validate.ts';
import { CommandLineError, exitCodeFor } from './errors.ts';
import { ExitCode } from './exit-codes.ts';
import { catchInterruptions } from './signals.ts';

/** Parses argv, runs one command, returns the exit code. Errors become codes in one place: errors.ts. */
export async function main(argv: string[]): Promise<number> {
  let exitCode: number = ExitCode.Ok;
  const setExit = (code: number) => (exitCode = code);
  const cli = yargs(argv)
    .scriptName('stampede')
    .command(adapt(run, setExit))
    .command(adapt(validate, setExit))
    .command(adapt(lint, setExit))
    .command(adapt(qualify, setExit))
    .command(adapt(sweep, setExit))
    .command(adapt(report, setExit))
    .command(adapt(compare, setExit))
    .command(adapt(history, setExit))
    .command(adapt(serve, setExit))
    .command(adapt(schema, setExit))
    .strict()
    .demandCommand(1, 'name a command (see --help)')
    .help()
    .version(packageVersion())
    .exitProcess(false)
    // Thrown, not printed: a failed parse (an unknown option, a missing argument) must stop before the handler runs.
    .fail((message, error) => {
      throw error ?? new CommandLineError(message);
    });
  try {
    await cli.parseAsync();
  } catch (error) {
    return exitCodeFor(error, (text) => process.stderr.write(text), Boolean(process.env.STAMPEDE_DEBUG));
  }
  return exitCode;
}

function adapt<A>(command: StampedeCommand<A>, setExit: (code: number) => void): CommandModule<object, A> {
  return {
    command: command.command,
    describe: command.describe,
    builder: (y: Argv) => command.builder(y),
    handler: async (args) => {
      if (command.ownsSignals) return void setExit(await command.run(args, new AbortController().signal));
      const interruption = catchInterruptions((text) => process.stderr.write(text));
      try {
        const code = await command.run(args, interruption.signal);
        setExit(interruption.exitCode ?? code);
      } finally {
        interruption.dispose();
      }
    },
  };
}

/** The version in package.json, two folders up from both src/cli/ and dist/cli/. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
