/** A key or an index on the way from a document's root to a value. */
export type PathSegment = string | number;

/**
 * ProfileIssue is one problem found while loading a profile: where it is, what was expected and found, and how to fix it.
 * `line` and `column` are 1-based; 0 means the problem has no place in the file (e.g. the file could not be read).
 */
export interface ProfileIssue {
  file: string;
  line: number;
  column: number;
  /** Where the value sits, e.g. `phases[1].rate`; empty for the document itself. */
  path: string;
  /** What was expected and what was found. */
  message: string;
  /** How to fix it. Never empty. */
  hint: string;
}

/** Where an issue points: at the value itself, or at the key naming it (for unknown fields). */
export type Anchor = 'value' | 'key';

/** PathIssue is a problem known only by its path; the loader places it in a file once it knows which document it is in. */
export interface PathIssue {
  path: PathSegment[];
  message: string;
  hint: string;
  anchor?: Anchor;
}

/** ProfileError carries every problem found in a profile (and its topology file), so the user fixes them in one pass. */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';

  constructor(
    /** The profile file as the user gave it. */
    readonly file: string,
    readonly issues: readonly ProfileIssue[],
  ) {
    super(`${file}: ${issues.length} problem${issues.length === 1 ? '' : 's'}\n${issues.map(formatIssue).join('\n')}`);
  }
}

/** formatPath renders `['phases', 1, 'rate']` as `phases[1].rate`. */
export function formatPath(path: readonly PathSegment[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return text;
}

/** formatIssue renders one issue as `file:line:col  path: message` plus an indented hint line. */
export function formatIssue(issue: ProfileIssue): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.column}` : issue.file;
  const what = issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
  return `${where}  ${what}\n    hint: ${issue.hint}`;
}

/** formatProfileError renders every issue of a ProfileError, one block per issue, in file order. */
export function formatProfileError(err: ProfileError): string {
  return err.issues.map(formatIssue).join('\n');
}
