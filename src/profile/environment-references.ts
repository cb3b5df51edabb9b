import type { PathIssue, PathSegment } from './issues.ts';

/*
 * `${NAME}` is read from the environment in the request templates only: an http request's path, its
 * header values and its body (secrets.ts). Everywhere else a profile's text is sent, dialled or
 * opened as written, so `${TOKEN}` in statsPath or `${HOME}` in a key file's path would go out as
 * those very characters. `${` there is refused, naming the field and the fields that take it. Not
 * refused: free text nobody sends (description, a multiplier's label), and a timeline exec command
 * written as one string, which /bin/sh expands itself.
 */

const ANY = Symbol('any');
type Pattern = readonly (PathSegment | typeof ANY)[];

/** Where `${` is the user's to write: the templates, free text, a shell command. */
const TAKES_REFERENCES: readonly Pattern[] = [
  ['http', 'requests', ANY, 'path'],
  ['http', 'requests', ANY, 'body'],
  ['http', 'requests', ANY, 'headers', ANY],
  ['description'],
  ['multipliers', ANY, 'label'],
  ['topology', 'timeline', ANY, 'command'],
];

const TEMPLATE_FIELDS_TAKING_REFERENCES = 'http.requests.<kind>.path, .headers.<name> and .body';

const FILE_PATHS: readonly Pattern[] = [['keys', 'file'], ['topology'], ['http', 'tls', 'ca'], ['http', 'tls', 'cert'], ['http', 'tls', 'key']];

function matches(path: readonly PathSegment[], pattern: Pattern): boolean {
  return path.length === pattern.length && pattern.every((part, i) => part === ANY || part === path[i]);
}

/**
 * `${` outside the fields that take it, in `data` (the raw profile, or a topology file's document
 * with `base` ['topology']); paths are relative to `data`.
 */
export function checkEnvironmentReferences(data: unknown, base: readonly PathSegment[] = []): PathIssue[] {
  const issues: PathIssue[] = [];
  const visit = (value: unknown, path: PathSegment[]): void => {
    const at = [...base, ...path];
    if (typeof value === 'string') {
      if (value.includes('${') && !TAKES_REFERENCES.some((p) => matches(at, p))) issues.push(referenceIssue(path, at, value, 'value'));
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, [...path, i]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('${')) issues.push(referenceIssue([...path, key], [...at, key], key, 'key'));
        visit(item, [...path, key]);
      }
    }
  };
  visit(data, []);
  return issues;
}

function referenceIssue(path: PathSegment[], at: readonly PathSegment[], text: string, anchor: 'value' | 'key'): PathIssue {
  const found = /\$\{[^}]*\}?/.exec(text)?.[0] ?? '${';
  return {
    path,
    anchor,
    message: `${JSON.stringify(found)} is not read from the environment here: ${whyAsWritten(at, anchor)}`,
    hint: `\${NAME} is read only in ${TEMPLATE_FIELDS_TAKING_REFERENCES} (and by /bin/sh in a timeline exec command written as one string); write the value itself here`,
  };
}

function whyAsWritten(at: readonly PathSegment[], anchor: 'value' | 'key'): string {
  if (anchor === 'key') return at.at(-2) === 'headers' ? 'a header name is sent as written' : 'a name is used as written';
  if (FILE_PATHS.some((p) => matches(at, p))) return 'the file is opened at this path as written';
  if (at[0] === 'target') return 'the target is dialled as written';
  if (matches(at, ['http', 'statsPath'])) return 'the stats path is requested as written';
  if (matches(at, ['http', 'tls', 'servername'])) return 'the name is sent (SNI) and checked as written';
  if (matches(at, ['topology', 'timeline', ANY, 'command', ANY])) return 'a command list runs without a shell, so nothing expands it (written as one string, /bin/sh would)';
  if (at[0] === 'keys') return 'keys are sent as written';
  return 'the field is used as written';
}
