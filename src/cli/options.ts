import { CommandLineError } from './errors.ts';

/*
 * Command-line values yargs cannot check. Numbers are declared to yargs as strings and read here,
 * so "--growth abc", "--growth" with no value and "--steps 1e9" each get one line naming the
 * option and its range, instead of NaN, a silent default or a run that never ends.
 */

/** The error for a bad option value: one line, the option first. */
export function optionError(option: string, problem: string, hint?: string): CommandLineError {
  return new CommandLineError(`${option}: ${problem}${hint ? ` (${hint})` : ''}`);
}

export interface NumberRange {
  /** Lowest value; excluded when `above` is set instead. */
  min?: number;
  /** Values must be greater than this. */
  above?: number;
  max?: number;
  /** Values must be less than this. */
  below?: number;
  integer?: boolean;
  /** A good value, shown in the message. */
  example: string;
}

/** A numeric option's value, checked against its range. */
export function numberOption(option: string, text: string, range: NumberRange): number {
  const value = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(text) ? Number(text) : Number.NaN;
  const ok =
    Number.isFinite(value) &&
    (!range.integer || Number.isInteger(value)) &&
    (range.min === undefined || value >= range.min) &&
    (range.above === undefined || value > range.above) &&
    (range.max === undefined || value <= range.max) &&
    (range.below === undefined || value < range.below);
  if (!ok) throw optionError(option, `expected ${describeRange(range)}, got ${JSON.stringify(text)}`, `e.g. ${option} ${range.example}`);
  return value;
}

/** An optional numeric option: undefined when not given. */
export function optionalNumberOption(option: string, text: string | undefined, range: NumberRange): number | undefined {
  return text === undefined ? undefined : numberOption(option, text, range);
}

function describeRange(range: NumberRange): string {
  const bounds = [
    range.min !== undefined && `≥ ${range.min}`,
    range.above !== undefined && `> ${range.above}`,
    range.max !== undefined && `≤ ${range.max}`,
    range.below !== undefined && `< ${range.below}`,
  ].filter(Boolean);
  return `${range.integer ? 'a whole number' : 'a number'}${bounds.length > 0 ? ` ${bounds.join(' and ')}` : ''}`;
}

/** The options a command declared, as yargs keeps them: which are repeatable, which are flags. */
export interface DeclaredOptions {
  array: string[];
  boolean: string[];
}

/**
 * Options yargs accepted but that are still mistakes: a single-valued option given twice (yargs
 * would pass both as an array), or given with no value (yargs passes "" or quietly takes the
 * default). `args` holds the parsed options (positionals left out), `argv` the raw words.
 */
export function checkOptionValues(args: Record<string, unknown>, declared: DeclaredOptions, argv: readonly string[]): void {
  const arrays = new Set(declared.array);
  const flags = new Set([...declared.boolean, 'help', 'version']);
  for (const [key, value] of Object.entries(args)) {
    if (key === '_' || key === '$0' || /[A-Z]/.test(key)) continue;
    if (Array.isArray(value) && !arrays.has(key)) throw optionError(`--${key}`, 'given more than once', `give --${key} once`);
    if (value === '' || (Array.isArray(value) && value.includes(''))) throw optionError(`--${key}`, 'expected a value', `see stampede --help`);
  }
  argv.forEach((word, i) => {
    const name = /^--([a-z][\w-]*)$/.exec(word)?.[1];
    const next = argv[i + 1];
    if (name !== undefined && !flags.has(name) && (next === undefined || next.startsWith('--'))) throw optionError(word, 'expected a value', 'see stampede --help');
  });
}

/**
 * `--segment -1/3` as `--segment=-1/3`. yargs reads a word that starts with "-" as short options,
 * so the value was lost and the message was `unexpected argument "1"`; a "-" and a digit after an
 * option that takes a value can only be its value (no option is named by a digit), and the option's
 * own check then says what is wrong with it. `takesValue`: the command's options that are no flag.
 */
export function joinDashedValues(argv: readonly string[], takesValue: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = /^--([a-z][\w-]*)$/.exec(argv[i]!)?.[1];
    const next = argv[i + 1];
    if (name !== undefined && takesValue.has(name) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${argv[i]}=${next}`);
      i++;
    } else out.push(argv[i]!);
  }
  return out;
}

/**
 * yargs' own messages, as one line naming what is wrong: "Unknown argument: rate" becomes "unknown
 * option --rate" when it was written as an option, "unexpected argument" when not.
 */
export function describeParseFailure(message: string, argv: readonly string[], commands: readonly { command: string }[]): string {
  const names = commands.map((c) => c.command.split(' ')[0]!);
  const given = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  if (given !== undefined && !names.includes(given)) return `unknown command ${JSON.stringify(given)}; commands: ${names.join(', ')} (see stampede --help)`;
  const usage = commands.find((c) => c.command.split(' ')[0] === given)?.command;
  const help = `(see stampede${given ? ` ${given}` : ''} --help)`;
  const unknown = /^Unknown arguments?: (.*)$/s.exec(message);
  if (unknown) {
    const each = unknown[1]!.split(', ').map((name) => {
      const flag = name.length === 1 ? `-${name}` : `--${name}`;
      return argv.some((a) => a === flag || a.startsWith(`${flag}=`)) ? `unknown option ${flag}` : `unexpected argument ${JSON.stringify(name)}`;
    });
    return `${each.join('; ')} ${help}`;
  }
  if (/^Not enough non-option arguments/.test(message) && usage) return `missing an argument: stampede ${usage} ${help}`;
  return `${message.replace(/\s*\n\s*/g, ' ')} ${help}`;
}

/** The allowed remote hosts: `--allow-remote` (each a comma-separated list) and STAMPEDE_ALLOW_REMOTE. */
export function allowedRemoteHosts(option: readonly string[] | undefined, env: string | undefined): string[] {
  return [...(option ?? []), env ?? '']
    .flatMap((list) => list.split(','))
    .map((host) => host.trim())
    .filter((host) => host !== '');
}
