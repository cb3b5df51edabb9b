import { readFileSync } from 'node:fs';
import yargs, { type Argv, type CommandModule } from 'yargs';
import type { StampedeCommand } from './command.ts';
import { calibrate } from './commands/calibrate.ts';
import { compare } from './commands/compare.ts';
import { exportCommand } from './commands/export.ts';
import { history } from './commands/history.ts';
import { lint } from './commands/lint.ts';
import { k8s } from './commands/k8s.ts';
import { merge } from './commands/merge.ts';
import { qualify } from './commands/qualify.ts';
import { report } from './commands/report.ts';
import { run } from './commands/run.ts';
import { schema } from './commands/schema.ts';
import { serve } from './commands/serve.ts';
import { sweep } from './commands/sweep.ts';
import { validate } from './commands/validate.ts';
import { CommandLineError, exitCodeFor } from './errors.ts';
import { checkOptionValues, type DeclaredOptions, describeParseFailure } from './options.ts';
import { ExitCode } from './exit-codes.ts';
import { catchInterruptions } from './signals.ts';
import { redactTerminal } from './terminal-redaction.ts';

/** Every command, for the messages about a command line that names none or a wrong one. */
const COMMANDS: readonly { command: string }[] = [run, validate, lint, qualify, calibrate, sweep, merge, k8s, report, compare, history, serve, schema, exportCommand];

/** Parses argv, runs one command, returns the exit code. Errors become codes in one place: errors.ts. */
export async function main(argv: string[]): Promise<number> {
  let exitCode: number = ExitCode.Ok;
  const setExit = (code: number) => (exitCode = code);
  const cli = yargs(argv)
    .scriptName('stampede')
    .command(adapt(run, setExit, argv))
    .command(adapt(validate, setExit, argv))
    .command(adapt(lint, setExit, argv))
    .command(adapt(qualify, setExit, argv))
    .command(adapt(calibrate, setExit, argv))
    .command(adapt(sweep, setExit, argv))
    .command(adapt(merge, setExit, argv))
    .command(adapt(k8s, setExit, argv))
    .command(adapt(report, setExit, argv))
    .command(adapt(compare, setExit, argv))
    .command(adapt(history, setExit, argv))
    .command(adapt(serve, setExit, argv))
    .command(adapt(schema, setExit, argv))
    .command(adapt(exportCommand, setExit, argv))
    .completion('completion', 'print a bash/zsh completion script (stampede completion >> ~/.bashrc)')
    // Options from STAMPEDE_* variables (STAMPEDE_TARGET, STAMPEDE_MAX_STEPS, …): the command line wins over them, and
    // they over the profile. Strict mode applies to them too: one naming no option of the command is rejected (exit 2).
    .env('STAMPEDE')
    .option('debug', { type: 'boolean', describe: 'print the stack of an internal error (also STAMPEDE_DEBUG=1)' })
    .strict()
    .demandCommand(1, 'name a command')
    .help()
    .version(packageVersion())
    .epilogue(EPILOGUE)
    .exitProcess(false)
    // Thrown, not printed: a failed parse (an unknown option, a missing argument) must stop before the handler runs.
    .fail((message, error) => {
      throw error ?? new CommandLineError(withEnvironmentHint(describeParseFailure(message, argv, COMMANDS), message));
    });
  const restoreTerminal = redactTerminal();
  try {
    await cli.parseAsync();
  } catch (error) {
    return exitCodeFor(error, (text) => process.stderr.write(text), Boolean(process.env.STAMPEDE_DEBUG) || argv.includes('--debug'));
  } finally {
    restoreTerminal();
  }
  return exitCode;
}

function adapt<A>(command: StampedeCommand<A>, setExit: (code: number) => void, argv: readonly string[]): CommandModule<object, A> {
  const positionals = new Set([...command.command.matchAll(/[<[]([\w-]+)[>\]]/g)].map((m) => m[1]!));
  let declared: DeclaredOptions = { array: [], boolean: [] };
  return {
    command: command.command,
    describe: command.describe,
    builder: (y: Argv) => {
      const built = command
        .builder(y)
        .example(...command.example)
        .epilogue(EPILOGUE);
      // yargs keeps the declared options at run time (getOptions), though its types do not say so.
      declared = (built as unknown as { getOptions(): DeclaredOptions }).getOptions();
      return built;
    },
    handler: async (args) => {
      const options = Object.fromEntries(Object.entries(args as Record<string, unknown>).filter(([key]) => !positionals.has(key)));
      checkOptionValues(options, declared, argv);
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

const EPILOGUE = [
  'Exit codes: 0 PASS (or no SLO) · 1 FAIL, INVALID or a regression · 2 bad input (profile, override, option) · 3 could not start · 4 the model diverged · 70 internal error (a bug; --debug for the stack) · 130 interrupted.',
  'Options also come from STAMPEDE_* variables (--max-steps from STAMPEDE_MAX_STEPS): the command line wins over them, they over the profile.',
].join('\n\n');

/**
 * yargs names an unknown option without saying where it came from: when a STAMPEDE_* variable
 * supplied it, say so, or the user hunts for a flag they never typed.
 */
/** `described`, plus the STAMPEDE_* variables behind yargs' `message` when an unknown option came from the environment. */
function withEnvironmentHint(described: string, message: string): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message)?.[1]?.split(', ') ?? [];
  const fromEnv = unknown
    .map(
      (name) =>
        `STAMPEDE_${name
          .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
          .replace(/-/g, '_')
          .toUpperCase()}`,
    )
    .filter((v) => v in process.env);
  return fromEnv.length === 0 ? described : `${described} (from the environment: ${fromEnv.join(', ')} names no option of this command)`;
}

/** The version in package.json, two folders up from both src/cli/ and dist/cli/. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
