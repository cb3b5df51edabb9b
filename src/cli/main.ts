import { readFileSync } from 'node:fs';
import yargs, { type Argv, type CommandModule } from 'yargs';
import { Outputs } from '../run-folder/outputs.ts';
import type { Lingering, StampedeCommand } from './command.ts';
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
import { trace } from './commands/trace.ts';
import { validate } from './commands/validate.ts';
import { CommandLineError, exitCodeFor } from './errors.ts';
import { checkOptionValues, type DeclaredOptions, describeParseFailure, joinDashedValues } from './options.ts';
import { ExitCode, exitCodesLine } from './exit-codes.ts';
import { settleOutputs, watchStandardOutput } from './outputs.ts';
import { catchInterruptions, lingerUntilSignal } from './signals.ts';

/** Every command, for the messages about a command line that names none or a wrong one. */
const COMMANDS_WITH_BUILDERS = [run, validate, lint, qualify, calibrate, sweep, merge, k8s, report, compare, history, serve, schema, exportCommand, trace] as const;
const COMMANDS: readonly { command: string }[] = COMMANDS_WITH_BUILDERS;

/** Parses argv, runs one command, returns the exit code. Errors become codes in one place: errors.ts. */
export async function main(given: string[]): Promise<number> {
  const argv = joinDashedValues(given, valueOptionsOf(given[0]));
  let exitCode: number = ExitCode.Ok;
  let bySignal = false;
  const setExit = (code: number, signalled = false) => {
    exitCode = code;
    bySignal = signalled;
  };
  const outputs = new Outputs();
  const checkStandardOutput = watchStandardOutput(outputs);
  const cli = yargs(argv)
    .scriptName('stampede')
    .command(adapt(run, setExit, argv, outputs))
    .command(adapt(validate, setExit, argv, outputs))
    .command(adapt(lint, setExit, argv, outputs))
    .command(adapt(qualify, setExit, argv, outputs))
    .command(adapt(calibrate, setExit, argv, outputs))
    .command(adapt(sweep, setExit, argv, outputs))
    .command(adapt(merge, setExit, argv, outputs))
    .command(adapt(k8s, setExit, argv, outputs))
    .command(adapt(report, setExit, argv, outputs))
    .command(adapt(compare, setExit, argv, outputs))
    .command(adapt(history, setExit, argv, outputs))
    .command(adapt(serve, setExit, argv, outputs))
    .command(adapt(schema, setExit, argv, outputs))
    .command(adapt(exportCommand, setExit, argv, outputs))
    .command(adapt(trace, setExit, argv, outputs))
    .completion('completion', 'print a bash/zsh completion script (stampede completion >> ~/.bashrc)')
    // Options from STAMPEDE_* variables (STAMPEDE_TARGET, STAMPEDE_MAX_STEPS, …): the command line wins over them, and
    // they over the profile. Each command takes the ones naming its options and sets the others aside (adapt).
    .env('STAMPEDE')
    .option('debug', { type: 'boolean', describe: 'print the stack of an internal error (also STAMPEDE_DEBUG=1)' })
    .strict()
    .demandCommand(1, 'name a command')
    .help()
    .alias('help', 'h')
    .version(packageVersion())
    .alias('version', 'v')
    .epilogue(EPILOGUE)
    .exitProcess(false)
    // Thrown, not printed: a failed parse (an unknown option, a missing argument) must stop before the handler runs.
    .fail((message, error) => {
      throw error ?? new CommandLineError(describeParseFailure(message, argv, COMMANDS, optionsOf));
    });
  for (const name of variablesNoCommandTakes(process.env)) process.stderr.write(`stampede: ${name} names no option of any command: ignored (a typo?)\n`);
  const stderr = (text: string) => void process.stderr.write(text);
  try {
    await cli.parseAsync();
  } catch (error) {
    exitCode = exitCodeFor(error, stderr, Boolean(process.env.STAMPEDE_DEBUG) || argv.includes('--debug'));
  } finally {
    // Last, after a linger too: the files not saved are the last line the terminal shows.
    checkStandardOutput();
    exitCode = settleOutputs(outputs, exitCode, bySignal, stderr);
  }
  return exitCode;
}

type SetExit = (code: number, bySignal?: boolean) => void;

function adapt<A>(command: StampedeCommand<A>, setExit: SetExit, argv: readonly string[], outputs: Outputs): CommandModule<object, A> {
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
      const taken = new Set([...Object.keys((declared as unknown as { key: object }).key), ...positionals]);
      // Before strict validation: a job-wide STAMPEDE_JUNIT is compare's or run's, not history's error.
      return built.middleware((args) => setAsideForeignVariables(args, taken, argv), true);
    },
    handler: async (args) => {
      const options = Object.fromEntries(Object.entries(args as Record<string, unknown>).filter(([key]) => !positionals.has(key)));
      checkOptionValues(options, declared, argv);
      if (command.ownsSignals) return void setExit(exitCodeOfEnd(await command.run(args, new AbortController().signal, outputs)));
      const interruption = catchInterruptions((text) => process.stderr.write(text));
      try {
        const end = await command.run(args, interruption.signal, outputs);
        setExit(interruption.exitCode ?? exitCodeOfEnd(end), interruption.exitCode !== undefined);
        if (typeof end !== 'number') await lingerUntilSignal(end, interruption);
      } finally {
        interruption.dispose();
      }
    },
  };
}

function exitCodeOfEnd(end: number | Lingering): number {
  return typeof end === 'number' ? end : end.exitCode;
}

const EPILOGUE = [
  exitCodesLine(),
  'Options also come from STAMPEDE_* variables (--max-steps from STAMPEDE_MAX_STEPS): the command line wins over them, they over the profile.',
].join('\n\n');

/** Global options every command takes. */
const GLOBAL_OPTIONS = ['debug', 'help', 'version'];

/**
 * A STAMPEDE_* variable names option `foo-bar` / `fooBar` as STAMPEDE_FOO_BAR. Variables naming no
 * option of this command are taken out of its arguments (yargs put them there from the environment),
 * unless the same word is on the command line, where strict mode should still see it.
 */
function setAsideForeignVariables(args: Record<string, unknown>, taken: ReadonlySet<string>, argv: readonly string[]): void {
  for (const name of Object.keys(process.env)) {
    const option = optionOfVariable(name);
    if (option === undefined || taken.has(option.kebab) || taken.has(option.camel) || GLOBAL_OPTIONS.includes(option.kebab)) continue;
    if (argv.some((word) => word === `--${option.kebab}` || word.startsWith(`--${option.kebab}=`))) continue;
    delete args[option.kebab];
    delete args[option.camel];
  }
}

/** A command's options by their long names, and the global ones: what a mistyped option is held against. */
function optionsOf(name: string): string[] {
  const command = commandNamed(name);
  const positionals = new Set([...(command?.command ?? '').matchAll(/[<[]([\w-]+)[>\]]/g)].map((m) => m[1]!));
  const declared = command ? Object.keys(declaredOptions(command).key) : [];
  return [...new Set([...declared.filter((key) => !positionals.has(key)), ...GLOBAL_OPTIONS])];
}

/** The STAMPEDE_* variables in `env` that name no option of any command: likely typos, each worth one warning line. */
export function variablesNoCommandTakes(env: NodeJS.ProcessEnv): string[] {
  const named = Object.keys(env).filter((name) => optionOfVariable(name) !== undefined);
  if (named.length === 0) return [];
  const taken = new Set(GLOBAL_OPTIONS);
  for (const command of COMMANDS_WITH_BUILDERS) for (const key of Object.keys(declaredOptions(command).key)) taken.add(key);
  return named.filter((name) => {
    const option = optionOfVariable(name);
    return option !== undefined && !taken.has(option.kebab) && !taken.has(option.camel);
  });
}

type Command = (typeof COMMANDS_WITH_BUILDERS)[number];

function commandNamed(word: string | undefined): Command | undefined {
  return COMMANDS_WITH_BUILDERS.find((c) => c.command.split(' ')[0] === word);
}

/** The options a command declares, as yargs keeps them (without parsing anything). */
function declaredOptions(command: Command): { key: object; boolean: string[] } {
  return (command.builder(yargs([])) as unknown as { getOptions(): { key: object; boolean: string[] } }).getOptions();
}

/** The options of the command named `word` that take a value (none for no command). */
function valueOptionsOf(word: string | undefined): Set<string> {
  const command = commandNamed(word);
  if (command === undefined) return new Set();
  const options = declaredOptions(command);
  return new Set(Object.keys(options.key).filter((key) => !options.boolean.includes(key)));
}

function optionOfVariable(name: string): { kebab: string; camel: string } | undefined {
  if (!name.startsWith('STAMPEDE_') || name.length === 'STAMPEDE_'.length) return undefined;
  const words = name.slice('STAMPEDE_'.length).toLowerCase().split('_');
  return { kebab: words.join('-'), camel: words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('') };
}

/** The version in package.json, two folders up from both src/cli/ and dist/cli/. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
