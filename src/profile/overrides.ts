import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { type PathSegment, formatPath } from './issues.ts';
import { describeFound } from './schema-walk.ts';
import { describeHidden, holdsSecret } from './secret-fields.ts';
import { type Position, type YamlSource, documentData, locate } from './yaml-source.ts';

/** Override is one parsed `--set path=value`; the value is read as YAML, so `2000`, `50ms` and `[{a: 1}]` all work. */
export interface Override {
  /** The override as the user wrote it, for messages. */
  text: string;
  path: PathSegment[];
  value: unknown;
}

/** AppliedOverride remembers where an override landed, so problems with its value point there and name it. */
export interface AppliedOverride {
  text: string;
  /** The part of the document the override wrote: its path, or the first parent it had to create. */
  path: PathSegment[];
  at: Position;
}

/** parseOverride reads `a.b[0].c=value` (or `a.b.0.c=value`). Returns a problem description when it is malformed. */
export function parseOverride(text: string): Override | { problem: string } {
  const eq = text.indexOf('=');
  if (eq < 0) return { problem: `expected path=value, got ${JSON.stringify(text)} (no "=")` };
  const pathText = text.slice(0, eq).trim();
  const path = parseOverridePath(pathText);
  if (!path) return { problem: `expected a path like phases[0].rate or slo.latency, got ${JSON.stringify(pathText)}` };
  const valueDoc = parseDocument(text.slice(eq + 1), { prettyErrors: false });
  const error = valueDoc.errors[0];
  if (error) return { problem: `expected a YAML value after "=", got a syntax error: ${error.message}` };
  const converted = documentData({ file: '<command line>', doc: valueDoc, lines: new LineCounter() });
  if ('issue' in converted) return { problem: converted.issue.message };
  return { text, path, value: converted.data };
}

const PART = /^([^.[\]\s]+)((?:\[\d+\])*)$/;

/** Digits become numbers: an index into a list, or a key of a mapping once the document says it is one. */
export function parseOverridePath(text: string): PathSegment[] | undefined {
  if (text === '') return undefined;
  const path: PathSegment[] = [];
  for (const part of text.split('.')) {
    const match = PART.exec(part);
    if (!match) return undefined;
    const name = match[1]!;
    path.push(/^\d+$/.test(name) ? Number(name) : name);
    for (const index of match[2]!.matchAll(/\[(\d+)\]/g)) path.push(Number(index[1]));
  }
  return path;
}

/**
 * applyOverride sets the value in the YAML document itself rather than in plain data, so every other node keeps its
 * line number. Missing parents are created. Returns where it landed, or a problem when the path runs through a
 * scalar or past the end of a list.
 */
export function applyOverride(source: YamlSource, override: Override): AppliedOverride | { problem: string } {
  const resolved = resolveKeys(source, override.path);
  if ('problem' in resolved) return resolved;
  const at = locate(source, resolved.path);
  try {
    source.doc.setIn(resolved.path, source.doc.createNode(override.value));
  } catch (error) {
    return { problem: `cannot set ${formatPath(override.path)}: ${(error as Error).message}` };
  }
  return { text: override.text, path: resolved.path.slice(0, resolved.created + 1), at };
}

/**
 * resolveKeys matches each segment to the document: a map key keeps the key's own type, a list needs an index.
 * `created` is the index of the first segment that does not exist yet (the last one when all do; -1 for an empty document).
 */
function resolveKeys(source: YamlSource, path: readonly PathSegment[]): { path: PathSegment[]; created: number } | { problem: string } {
  const resolved: PathSegment[] = [];
  let created = path.length - 1;
  let node: unknown = source.doc.contents;
  for (const [i, segment] of path.entries()) {
    if (isAlias(node)) node = node.resolve(source.doc);
    const here = formatPath(resolved) || 'the document';
    if (node === undefined || node === null) {
      // The previous segment was missing (or, at i = 0, the document is empty): the override creates it.
      created = Math.min(created, i - 1);
      resolved.push(segment);
    } else if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      const key = pair && isScalar(pair.key) ? pair.key.value : String(segment);
      resolved.push(typeof key === 'number' ? key : String(key));
      node = pair?.value;
    } else if (isSeq(node)) {
      if (typeof segment !== 'number') return { problem: `${here} is a list; expected an index like [0], got "${segment}"` };
      const count = node.items.length;
      if (segment > count) return { problem: `${here} has ${count} item${count === 1 ? '' : 's'}; expected an index up to ${count}, got ${segment}` };
      resolved.push(segment);
      node = node.items[segment];
    } else {
      const value = isScalar(node) ? node.value : node;
      const found = holdsSecret(resolved, value) ? describeHidden(value) : describeFound(value);
      return { problem: `${here} is ${found}, not a mapping or a list, so it has no "${segment}"` };
    }
  }
  return { path: resolved, created };
}

/** overrideFor returns the last override whose path contains `path`, i.e. the one that wrote the value there. */
export function overrideFor(applied: readonly AppliedOverride[], path: readonly PathSegment[]): AppliedOverride | undefined {
  for (let i = applied.length - 1; i >= 0; i--) {
    const o = applied[i]!;
    if (o.path.length <= path.length && o.path.every((s, j) => String(s) === String(path[j]))) return o;
  }
  return undefined;
}
