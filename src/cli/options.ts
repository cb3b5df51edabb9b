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
 * option --rate" when it was written as an option, "unexpected argument" when not; a mistyped
 * command or option names the one it is closest to ("did you mean --target?"). `optionsOf` gives a
 * command's options (their long names).
 */
export function describeParseFailure(
  message: string,
  argv: readonly string[],
  commands: readonly { command: string }[],
  optionsOf: (command: string) => readonly string[] = () => [],
): string {
  const names = commands.map((c) => c.command.split(' ')[0]!);
  const given = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  if (given !== undefined && !names.includes(given)) {
    const near = closest(given, names);
    return `unknown command ${JSON.stringify(given)}${near ? `: did you mean "${near}"?` : ''} (commands: ${names.join(', ')}; see stampede --help)`;
  }
  const usage = commands.find((c) => c.command.split(' ')[0] === given)?.command;
  const help = `(see stampede${given ? ` ${given}` : ''} --help)`;
  const unknown = /^Unknown arguments?: (.*)$/s.exec(message);
  if (unknown) {
    const listed = unknown[1]!.split(', ');
    // yargs names an unknown --max-step twice, as max-step and maxStep.
    const each = listed
      .filter((name) => !listed.some((other) => other !== name && other.includes('-') && camel(other) === name))
      .map((name) => {
        const flag = name.length === 1 ? `-${name}` : `--${name}`;
        if (!argv.some((a) => a === flag || a.startsWith(`${flag}=`))) return `unexpected argument ${JSON.stringify(name)}`;
        const near =
          name.length > 1
            ? closest(
                name,
                optionsOf(given ?? '').filter((o) => o.length > 1),
              )
            : undefined;
        return `unknown option ${flag}${near ? `: did you mean --${near}?` : ''}`;
      });
    return `${each.join('; ')} ${help}`;
  }
  if (/^Not enough non-option arguments/.test(message) && usage) return `missing an argument: stampede ${usage} ${help}`;
  return `${message.replace(/\s*\n\s*/g, ' ')} ${help}`;
}

function camel(kebab: string): string {
  return kebab.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * The known word a typo most likely meant: the nearest by edit distance (a swap of two neighbours
 * counts one), within 1 edit for words of up to 4 letters, 2 up to 8, 3 beyond; undefined when
 * none is that near, or two are equally near.
 */
export function closest(word: string, known: readonly string[]): string | undefined {
  const reach = word.length <= 4 ? 1 : word.length <= 8 ? 2 : 3;
  const scored = known.map((k) => ({ k, d: editDistance(word.toLowerCase(), k.toLowerCase()) })).filter((s) => s.d <= reach && s.k !== word);
  const best = Math.min(...scored.map((s) => s.d));
  const nearest = scored.filter((s) => s.d === best);
  return nearest.length === 1 ? nearest[0]!.k : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours, one each. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/** The allowed remote hosts: `--allow-remote` (each a comma-separated list) and STAMPEDE_ALLOW_REMOTE. */
export function allowedRemoteHosts(option: readonly string[] | undefined, env: string | undefined): string[] {
  return [...(option ?? []), env ?? '']
    .flatMap((list) => list.split(','))
    .map((host) => host.trim())
    .filter((host) => host !== '');
}
