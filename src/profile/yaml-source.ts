import { type Document, LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, visit } from 'yaml';
import type { Anchor, PathSegment, ProfileIssue } from './issues.ts';

/** YamlSource is one parsed YAML file kept as a document, so any value can be traced back to its line. */
export interface YamlSource {
  file: string;
  doc: Document;
  lines: LineCounter;
}

export interface Position {
  line: number;
  column: number;
}

const SYNTAX_HINTS: Readonly<Record<string, string>> = {
  BAD_INDENT: 'indent nested fields with spaces, the same amount at each level',
  TAB_AS_INDENT: 'indent with spaces; YAML does not allow tabs for indentation',
  DUPLICATE_KEY: 'each field may appear only once in a mapping; remove or merge the repeated one',
  MISSING_CHAR: 'something is missing here: a "- " before a list item, a ": " after a key, or a closing ] or }',
  MULTILINE_IMPLICIT_KEY: 'a key must fit on one line and be followed by ": "; check the indentation of the lines above',
  MULTIPLE_DOCS: 'a profile is a single YAML document; remove the "---" separator',
};
const DEFAULT_SYNTAX_HINT = 'fix the YAML syntax: indent with spaces, put a space after each "key:", quote values containing ": " or " #"';

/** parseYamlSource parses text into a document; syntax errors come back as issues with their line and column. */
export function parseYamlSource(text: string, file: string): { source: YamlSource; issues: ProfileIssue[] } {
  const lines = new LineCounter();
  // prettyErrors off: we print our own position, so the message must not repeat it with a code excerpt.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const source = { file, doc, lines };
  const issues = doc.errors.map((error) => ({
    file,
    ...positionAt(source, error.pos[0]),
    path: '',
    message: `YAML syntax error: ${error.message}`,
    hint: SYNTAX_HINTS[error.code] ?? DEFAULT_SYNTAX_HINT,
  }));
  return { source, issues };
}

/**
 * Most alias expansions a document may take (the yaml package's own guard, made explicit): a
 * "billion laughs" document of nested aliases would otherwise grow without bound in toJS.
 */
export const MAX_ALIAS_COUNT = 100;

/**
 * The document as plain data, or an issue when it cannot become data: an alias bomb (more
 * expansions than MAX_ALIAS_COUNT) or an alias the document does not define.
 */
export function documentData(source: YamlSource): { data: unknown } | { issue: ProfileIssue } {
  try {
    return { data: source.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    const alias = firstAlias(source);
    const bomb = /alias count/i.test((error as Error).message);
    return {
      issue: {
        file: source.file,
        ...(alias ? positionAt(source, alias[0]) : { line: 1, column: 1 }),
        path: '',
        message: bomb ? `YAML aliases expand to too much data (more than ${MAX_ALIAS_COUNT} expansions)` : `YAML alias cannot be resolved: ${(error as Error).message}`,
        hint: bomb ? 'write the values out, or use fewer nested anchors (&name) and aliases (*name)' : 'define the anchor (&name) before its alias (*name)',
      },
    };
  }
}

function firstAlias(source: YamlSource): readonly [number, number, number] | undefined {
  let found: readonly [number, number, number] | undefined;
  visit(source.doc, {
    Alias(_, node) {
      found = node.range ?? undefined;
      return found ? visit.BREAK : undefined;
    },
  });
  return found;
}

function positionAt(source: YamlSource, offset: number): Position {
  const { line, col } = source.lines.linePos(offset);
  return { line, column: col };
}

/**
 * locate finds the line and column of the value at `path`. A value that does not exist (a missing field) or was
 * created by an override has no place of its own, so the nearest ancestor that does stands in: for a missing required
 * field that is the parent mapping.
 */
export function locate(source: YamlSource, path: readonly PathSegment[], anchor: Anchor = 'value'): Position {
  let node: unknown = source.doc.contents;
  let best: Position = { line: 1, column: 1 };
  const consider = (n: unknown): void => {
    const range = rangeOf(n);
    if (range) best = positionAt(source, range[0]);
  };
  consider(node);
  for (const [i, segment] of path.entries()) {
    node = resolveAlias(source, node);
    const isLast = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      if (isLast && anchor === 'key') {
        consider(pair.key);
        break;
      }
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
    } else {
      break;
    }
    if (node === undefined || node === null) break;
    consider(node);
  }
  return best;
}

function resolveAlias(source: YamlSource, node: unknown): unknown {
  return isAlias(node) ? node.resolve(source.doc) : node;
}

/** A node's range in the source; nodes created by --set have none. */
function rangeOf(node: unknown): readonly [number, number, number] | undefined {
  return isMap(node) || isSeq(node) || isScalar(node) || isAlias(node) ? (node.range ?? undefined) : undefined;
}
