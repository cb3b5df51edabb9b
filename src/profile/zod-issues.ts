import type { z } from 'zod';
import { type PathIssue, type PathSegment, formatPath } from './issues.ts';
import { describeHidden, holdsSecret } from './secret-fields.ts';
import {
  type FieldKind,
  type Unwrapped,
  allowedKeys,
  describeUnwrapped,
  describeFound,
  discriminatorValues,
  requiredKeys,
  resolveVariants,
  schemaAt,
  unionOptions,
  valueAtPath,
} from './schema-walk.ts';

type Schema = z.core.$ZodType;
type ZodIssue = z.core.$ZodIssue;

const KIND_HINTS: Readonly<Record<FieldKind, string>> = {
  duration: 'write a duration like "500ms", "30s" or "2m"',
  durationOrInfinite: 'write a duration like "500ms", "30s" or "2m", or "inf" for no limit',
  rate: 'requests per second, e.g. 1000',
  share: 'a fraction between 0 and 1, e.g. 0.05 for 5%',
  distribution: 'write a single number, or a distribution such as {type: uniform, min: 1, max: 50}',
};
const GENERIC_HINT = 'run `stampede schema` to see every field and what it accepts';

/** Hints for the messages of the schema's own refinements, which zod reports as bare "custom" issues. */
const REFINEMENT_HINTS: readonly (readonly [string, string])[] = [
  ['expected exactly one of share, rate, phases', 'give the client a share (of the profile’s phases), its own constant rate, or its own phases'],
  ['expected max ≥ min', 'swap min and max, or widen the range'],
];

/**
 * translateZodIssues turns zod issues into path issues whose messages say what was expected and what was found.
 * Union failures are narrowed to the variant the data was meant for, so the user sees one precise problem instead
 * of one complaint per variant.
 */
export function translateZodIssues(root: Schema, issues: readonly ZodIssue[], data: unknown, base: readonly PathSegment[] = []): PathIssue[] {
  return issues.flatMap((issue) => {
    const path = [...base, ...issue.path.filter((s): s is PathSegment => typeof s !== 'symbol')];
    return translate(root, issue, data, path);
  });
}

function translate(root: Schema, issue: ZodIssue, data: unknown, path: PathSegment[]): PathIssue[] {
  const value = valueAtPath(data, path);
  const at = schemaAt(root, path, data);
  // A secret's field is named by what it holds, never its text: the message goes to the terminal and to CI logs.
  const found = holdsSecret(path, value) ? describeHidden(value) : describeFound(value);
  const hint = hintFor(at);
  switch (issue.code) {
    case 'invalid_union':
      if (issue.discriminator !== undefined && issue.errors.length === 0) {
        return [discriminatorIssue(root, issue.discriminator, issue, data, path)];
      }
      if (value === undefined && path.length > 0) return [missingIssue(path, expectedAt(at, 'a value'), hint)];
      return narrowUnion(root, issue.errors, data, path) ?? [{ path, message: `expected ${expectedAt(at, 'a valid value')}, got ${found}`, hint }];
    case 'invalid_type':
      if (value === undefined && path.length > 0) return [missingIssue(path, expectedAt(at, issue.expected), hint)];
      return [{ path, message: `expected ${expectedAt(at, issue.expected)}, got ${found}`, hint }];
    case 'too_small':
    case 'too_big': {
      const message = `expected ${boundWording(issue, at)}, got ${sizeFound(issue.origin, value, found)}`;
      if (issue.origin !== 'array' || issue.code !== 'too_small') return [{ path, message, hint }];
      const add = `add at least ${Number(issue.minimum)} item(s)`;
      return [{ path, message, hint: at?.description ? `${add}. ${at.description}` : add }];
    }
    case 'invalid_format': {
      const own = issue.message.startsWith('expected ') ? issue.message.slice('expected '.length) : `text matching ${issue.pattern ?? issue.format}`;
      return [{ path, message: `expected ${at?.kind ? describeUnwrapped(at) : own}, got ${found}`, hint }];
    }
    case 'invalid_value': {
      const allowed = issue.values.map((v) => String(v)).join(' | ');
      const expected = issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${allowed}`;
      return [{ path, message: `expected ${expected}, got ${found}`, hint: at?.description ?? `allowed: ${allowed}` }];
    }
    case 'unrecognized_keys':
      return issue.keys.map((key) => unknownKeyIssue(root, data, path, key));
    case 'custom': {
      const scalar = value !== null && typeof value !== 'object' && value !== undefined;
      const saysFound = /\bgot\b/.test(issue.message);
      const message = issue.message.startsWith('expected') && scalar && !saysFound ? `${issue.message}, got ${found}` : issue.message;
      const own = REFINEMENT_HINTS.find(([prefix]) => issue.message.startsWith(prefix))?.[1];
      return [{ path, message, hint: own ?? hint }];
    }
    default:
      return [{ path, message: `${issue.message} (got ${found})`, hint }];
  }
}

function missingIssue(path: PathSegment[], expected: string, hint: string): PathIssue {
  const field = String(path[path.length - 1]);
  const where = formatPath(path.slice(0, -1)) || 'the top level';
  return { path, message: `missing required field "${field}": expected ${expected}`, hint: `add ${field} to ${where}: ${hint}` };
}

function hintFor(at: Unwrapped | undefined): string {
  return (at?.kind && KIND_HINTS[at.kind]) ?? at?.description ?? GENERIC_HINT;
}

/** expectedAt words the schema at a path, or falls back to zod's own word when the path leaves the schema. */
function expectedAt(at: Unwrapped | undefined, fallback: string): string {
  return at ? describeUnwrapped(at) : fallback;
}

function boundWording(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig, at: Unwrapped | undefined): string {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === 'array' || issue.origin === 'set') return `${small ? 'at least' : 'at most'} ${bound} item${bound === 1 ? '' : 's'}`;
  if (issue.origin === 'string') return `${small ? 'at least' : 'at most'} ${bound} character${bound === 1 ? '' : 's'}`;
  // A plain field or a known kind is worded from its schema; a distribution also takes a bare number, and zod's bound
  // for that number is the useful part.
  if (at && at.kind !== 'distribution' && (at.kind || unionOptions(at.schema).length === 0)) return describeUnwrapped(at);
  const op = small ? (issue.inclusive ? '≥' : '>') : issue.inclusive ? '≤' : '<';
  return `a number ${op} ${bound}`;
}

function sizeFound(origin: string, value: unknown, found: string): string {
  if ((origin === 'array' || origin === 'set') && Array.isArray(value)) return `${value.length}`;
  return found;
}

/**
 * narrowUnion keeps the issues of the union variant the value was meant for: the variants that got past the
 * "wrong kind of value" stage (a mapping given to a number variant fails at once, "abc" given to the literal "inf"
 * too). Undefined when none did; the caller then words the union as a whole.
 */
function narrowUnion(root: Schema, branches: readonly (readonly ZodIssue[])[], data: unknown, path: PathSegment[]): PathIssue[] | undefined {
  const wrongKind = (i: ZodIssue): boolean => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value');
  const meant = branches.filter((issues) => !issues.every(wrongKind));
  if (meant.length === 0) return undefined;
  const best = meant.reduce((a, b) => (b.length < a.length ? b : a));
  return translateZodIssues(root, best, data, path);
}

function discriminatorIssue(root: Schema, discriminator: string, issue: z.core.$ZodIssueInvalidUnion, data: unknown, path: PathSegment[]): PathIssue {
  const keyPath = path[path.length - 1] === discriminator ? path : [...path, discriminator];
  const parentPath = keyPath.slice(0, -1);
  const options = 'options' in issue && issue.options ? issue.options.map(String) : [];
  const found = describeFound(valueAtPath(data, keyPath));
  const parent = schemaAt(root, parentPath, data);
  const variants = parent ? unionOptions(resolveVariants(parent.schema, valueAtPath(data, parentPath)).schema) : [];
  const needs = variants.map((variant) => {
    const [tag = '?', ...rest] = [discriminatorValues(variant, discriminator).map(String).join('|'), ...requiredKeys(variant).filter((k) => k !== discriminator)];
    return rest.length ? `${tag} needs ${rest.join(', ')}` : `${tag} needs nothing else`;
  });
  return {
    path: keyPath,
    message: `expected ${discriminator} to be one of ${options.join(' | ')}, got ${found}`,
    hint: needs.length ? needs.join('; ') : `write ${discriminator}: ${options[0] ?? '…'}`,
  };
}

/**
 * Fields that were replaced, with what replaces them. Refused rather than translated: the new field
 * says more than the old one did, and a profile should read the way the schema documents it.
 */
const REPLACED_FIELDS: Readonly<Record<string, string>> = {
  flushOnRejoin:
    'flushOnRejoin was replaced by `rejoin: { membership: cold }` (true) or `warm` (false, the default); rejoin also says how a shard comes back from a markDown, an outage or a restart',
};

function unknownKeyIssue(root: Schema, data: unknown, path: PathSegment[], key: string): PathIssue {
  const replaced = Object.hasOwn(REPLACED_FIELDS, key) ? REPLACED_FIELDS[key] : undefined;
  if (replaced !== undefined) return { path: [...path, key], anchor: 'key', message: `unknown field "${key}"`, hint: replaced };
  const allowed = allowedKeys(root, path, data) ?? [];
  const suggestion = closest(key, allowed);
  const list = allowed.length ? `allowed: ${allowed.join(', ')}` : 'this mapping takes no fields; remove it';
  return {
    path: [...path, key],
    anchor: 'key',
    message: `unknown field "${key}"`,
    hint: suggestion ? `did you mean "${suggestion}"? ${list}` : list,
  };
}

/** closest returns the allowed key nearest to a misspelt one, if it is near enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = candidate.toLowerCase() === word.toLowerCase() ? 0 : editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}
