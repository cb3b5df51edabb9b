import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { sizeDistribution, timeDistribution } from './distribution.ts';
import type { PathSegment } from './issues.ts';
import { duration, durationOrInfinite, rate, share } from './units.ts';

/*
 * Reading zod 4 schemas from the inside (`schema._zod.def`), so an issue can say which fields are allowed, what a
 * field expects and what it means. zod has no public API for this; everything that touches its internals is here.
 */

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypes['_zod']['def'];
interface CheckDef {
  check: string;
  value?: unknown;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
}

function defOf(schema: Schema): Def {
  return (schema as z.core.$ZodTypes)._zod.def;
}

/** Field kinds with their own wording; recognised by their shared def, which `.meta()` and clones keep. */
export type FieldKind = 'duration' | 'durationOrInfinite' | 'rate' | 'share' | 'distribution';
const KINDS: ReadonlyMap<unknown, FieldKind> = new Map<unknown, FieldKind>([
  [durationOrInfinite._zod.def, 'durationOrInfinite'],
  [duration._zod.def, 'duration'],
  [rate._zod.def, 'rate'],
  [share._zod.def, 'share'],
  [sizeDistribution._zod.def, 'distribution'],
  [timeDistribution._zod.def, 'distribution'],
]);

/** A schema with its wrappers (optional, default, pipe, …) peeled off, and the outermost description met on the way. */
export interface Unwrapped {
  schema: Schema;
  description: string | undefined;
  kind: FieldKind | undefined;
}

/** unwrap peels optional/default/pipe/… wrappers. It stops at unions: choosing a variant needs the data. */
export function unwrap(schema: Schema): Unwrapped {
  let current = schema;
  let description: string | undefined;
  let kind: FieldKind | undefined;
  for (;;) {
    description ??= z.globalRegistry.get(current)?.description;
    kind ??= KINDS.get(current._zod.def);
    const def = defOf(current);
    switch (def.type) {
      case 'optional':
      case 'default':
      case 'prefault':
      case 'nullable':
      case 'nonoptional':
      case 'readonly':
      case 'catch':
        current = def.innerType;
        continue;
      case 'lazy':
        current = def.getter();
        continue;
      case 'pipe':
        // Profiles are written in the input shape; a preprocess pipe starts with a transform, so its schema is `out`.
        current = defOf(def.in).type === 'transform' ? def.out : def.in;
        continue;
      default:
        return { schema: current, description, kind };
    }
  }
}

function valueKind(value: unknown): 'list' | 'mapping' | 'string' | 'number' | 'boolean' | 'null' | 'missing' {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'mapping';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  return 'boolean';
}

function accepts(schema: Schema, value: unknown): boolean {
  const def = defOf(unwrap(schema).schema);
  const kind = valueKind(value);
  switch (def.type) {
    case 'object':
    case 'record':
      return kind === 'mapping';
    case 'array':
    case 'tuple':
      return kind === 'list';
    case 'string':
    case 'enum':
    case 'template_literal':
      return kind === 'string';
    case 'number':
      return kind === 'number';
    case 'boolean':
      return kind === 'boolean';
    case 'literal':
      return def.values.some((v) => v === value || valueKind(v) === kind);
    case 'union':
      return def.options.some((option) => accepts(option, value));
    default:
      return false;
  }
}

/**
 * variantIndex picks the union option meant for `value`: for a discriminated union the one whose discriminator
 * literal equals the value's, otherwise the first option accepting that kind of value (a mapping, a list, a number…).
 */
function variantIndex(union: Schema, value: unknown): number | undefined {
  const def = defOf(union);
  if (def.type !== 'union') return undefined;
  if ('discriminator' in def && typeof def.discriminator === 'string') {
    if (valueKind(value) !== 'mapping') return undefined;
    const tag = (value as Record<string, unknown>)[def.discriminator];
    const index = def.options.findIndex((option) => discriminatorValues(option, def.discriminator as string).includes(tag));
    return index >= 0 ? index : undefined;
  }
  const index = def.options.findIndex((option) => accepts(option, value));
  return index >= 0 ? index : undefined;
}

/** discriminatorValues lists the literal values a union option takes for its discriminator field. */
export function discriminatorValues(option: Schema, discriminator: string): unknown[] {
  const def = defOf(unwrap(option).schema);
  if (def.type !== 'object') return [];
  const field = def.shape[discriminator];
  if (!field) return [];
  const fieldDef = defOf(unwrap(field).schema);
  return fieldDef.type === 'literal' ? fieldDef.values : [];
}

/** resolveVariants unwraps and follows union options chosen by `value` until a non-union schema is reached. */
export function resolveVariants(schema: Schema, value: unknown): Unwrapped {
  let found = unwrap(schema);
  for (;;) {
    const index = variantIndex(found.schema, value);
    const def = defOf(found.schema);
    if (index === undefined || def.type !== 'union') return found;
    const inner = unwrap(def.options[index]!);
    found = { schema: inner.schema, description: found.description ?? inner.description, kind: found.kind ?? inner.kind };
  }
}

function child(value: unknown, segment: PathSegment): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  return (value as Record<PathSegment, unknown>)[segment];
}

/**
 * schemaAt walks from `root` along `path`, choosing union variants by the data met on the way, and returns the
 * schema of the value at the end (unions at the end are left unresolved). Undefined when the path leaves the schema.
 */
export function schemaAt(root: Schema, path: readonly PathSegment[], rootValue: unknown): Unwrapped | undefined {
  let found = unwrap(root);
  let value = rootValue;
  for (const segment of path) {
    const def = defOf(resolveVariants(found.schema, value).schema);
    let next: Schema | undefined;
    if (def.type === 'object') next = def.shape[String(segment)] ?? def.catchall;
    else if (def.type === 'array') next = def.element;
    else if (def.type === 'record') next = def.valueType;
    if (!next) return undefined;
    found = unwrap(next);
    value = child(value, segment);
  }
  return found;
}

/** allowedKeys lists the fields of the mapping at `path`, or undefined when that is not a fixed-shape mapping. */
export function allowedKeys(root: Schema, path: readonly PathSegment[], rootValue: unknown): string[] | undefined {
  const at = schemaAt(root, path, rootValue);
  if (!at) return undefined;
  const def = defOf(resolveVariants(at.schema, valueAtPath(rootValue, path)).schema);
  return def.type === 'object' ? Object.keys(def.shape) : undefined;
}

/** requiredKeys lists the fields of an object schema that have neither a default nor `.optional()`. */
export function requiredKeys(schema: Schema): string[] {
  const def = defOf(unwrap(schema).schema);
  if (def.type !== 'object') return [];
  return Object.entries(def.shape)
    .filter(([, field]) => field._zod.optin !== 'optional')
    .map(([key]) => key);
}

/** unionOptions returns the options of a union schema (after unwrapping), or [] for anything else. */
export function unionOptions(schema: Schema): readonly Schema[] {
  const def = defOf(unwrap(schema).schema);
  return def.type === 'union' ? def.options : [];
}

export function valueAtPath(root: unknown, path: readonly PathSegment[]): unknown {
  return path.reduce<unknown>(child, root);
}

const KIND_WORDING: Readonly<Record<FieldKind, string>> = {
  duration: 'a duration like "500ms", "30s" or "2m"',
  durationOrInfinite: 'a duration like "500ms", "30s" or "2m", or "inf"',
  rate: 'a number ≥ 0',
  share: 'a number between 0 and 1',
  distribution: 'a number ≥ 0 or a distribution {type: fixed | uniform | exponential | lognormal | empirical | mixture, …}',
};

/** describeExpected words what a schema accepts, e.g. "a number ≥ 0" or "one of constant | poisson". */
export function describeExpected(schema: Schema): string {
  return describeUnwrapped(unwrap(schema));
}

/** describeUnwrapped is describeExpected for a schema already unwrapped, whose kind was learnt from its wrappers. */
export function describeUnwrapped({ schema: inner, kind }: Unwrapped): string {
  if (kind) return KIND_WORDING[kind];
  const def = defOf(inner);
  switch (def.type) {
    case 'number':
      return describeNumber(def.checks ?? []);
    case 'string':
      return 'text';
    case 'boolean':
      return 'true or false';
    case 'literal':
      return def.values.map((v) => JSON.stringify(v)).join(' or ');
    case 'enum':
      return `one of ${Object.values(def.entries).join(' | ')}`;
    case 'array':
    case 'tuple':
      return 'a list';
    case 'object':
    case 'record':
      return 'a mapping';
    case 'union': {
      if ('discriminator' in def && typeof def.discriminator === 'string') {
        const tags = def.options.flatMap((option) => discriminatorValues(option, def.discriminator as string));
        return `a mapping with ${def.discriminator} one of ${tags.join(' | ')}`;
      }
      return [...new Set(def.options.map(describeExpected))].join(' or ');
    }
    default:
      return 'a valid value';
  }
}

function describeNumber(checks: readonly { _zod: { def: unknown } }[]): string {
  let noun = 'a number';
  let low = '';
  let high = '';
  let lowValue: unknown;
  let highValue: unknown;
  for (const check of checks) {
    const def = check._zod.def as CheckDef;
    if (def.check === 'number_format') noun = 'a whole number';
    if (def.check === 'greater_than') [low, lowValue] = [`${def.inclusive ? '≥' : '>'} ${String(def.value)}`, def.value];
    if (def.check === 'less_than') [high, highValue] = [`${def.inclusive ? '≤' : '<'} ${String(def.value)}`, def.value];
  }
  if (low.startsWith('≥') && high.startsWith('≤')) return `${noun} between ${String(lowValue)} and ${String(highValue)}`;
  return [noun, low, high].filter(Boolean).join(' ');
}

/** describeFound words a value from the document for a message: `"fast"`, `12`, `a list`, `nothing`. */
export function describeFound(value: unknown): string {
  switch (valueKind(value)) {
    case 'missing':
      return 'nothing';
    case 'list':
      return 'a list';
    case 'mapping':
      return 'a mapping';
    case 'string':
      return JSON.stringify(value);
    default:
      return String(value);
  }
}

/**
 * A value as far as a schema parses it: every field optional, every list item possibly missing. What
 * parsed is the schema's output (defaults applied, durations in µs); what did not is left out.
 */
export type Salvaged<T> = T extends readonly (infer Item)[] ? (Salvaged<Item> | undefined)[] : T extends object ? { [K in keyof T]?: Salvaged<T[K]> } : T;

/**
 * salvage parses `value` as far as `schema` allows: the schema's output when the whole parses; else,
 * part by part, the output of each field, list item and map entry that parses on its own, a failing
 * leaf left out. A mapping whose union variant is unknown (a phase of type "plateau") keeps what every
 * variant reads alike. The cross-field checks read this, so they run beside the schema's own issues.
 */
export function salvage<S extends Schema>(schema: S, value: unknown): Salvaged<z.output<S>> | undefined {
  return salvageValue(schema, value) as Salvaged<z.output<S>> | undefined;
}

function salvageValue(schema: Schema, value: unknown): unknown {
  const whole = z.safeParse(schema, value);
  if (whole.success) return whole.data;
  const def = defOf(resolveVariants(schema, value).schema);
  if (def.type === 'array') return Array.isArray(value) ? value.map((item) => salvageValue(def.element, item)) : undefined;
  if (valueKind(value) !== 'mapping') return undefined;
  const mapping = value as Record<string, unknown>;
  switch (def.type) {
    case 'object':
      return definedEntries(Object.entries(def.shape).map(([key, field]) => [key, salvageValue(field, mapping[key])]));
    case 'record':
      return definedEntries(Object.entries(mapping).map(([key, item]) => [key, salvageValue(def.valueType, item)]));
    case 'union':
      return agreedReading(def.options.map((option) => salvageValue(option, value)));
    default:
      return undefined;
  }
}

function definedEntries(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  return Object.fromEntries(entries.filter(([, item]) => item !== undefined));
}

/** The fields every variant's reading of a mapping gives, and gives alike. */
function agreedReading(readings: readonly unknown[]): Record<string, unknown> | undefined {
  const mappings = readings.filter((r): r is Record<string, unknown> => valueKind(r) === 'mapping');
  const [first, ...others] = mappings;
  if (first === undefined) return undefined;
  return definedEntries(Object.entries(first).filter(([key, item]) => others.every((other) => isDeepStrictEqual(other[key], item))));
}
