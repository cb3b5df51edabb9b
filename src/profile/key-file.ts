import { createHash } from 'node:crypto';
import { parse } from 'csv-parse';
import { InputFileError, openInputStream } from '../files/input-file.ts';
import { KEY_FILE, KEY_FILE_ROW_MAX } from './file-bounds.ts';
import type { ProfileIssue } from './issues.ts';
import { MEMCACHED_KEY_RULE, memcachedKeyProblem, shownKey } from './memcached-keys.ts';

/*
 * `keys: { file: keys.csv }`: a sample of production keys, optionally weighted, read once when the
 * profile loads. The file is streamed through csv-parse (quoting, CRLF, a BOM, keys with commas all
 * handled by a parser that is not ours) and kept only as the keys in rank order and their running
 * weight: the schedule draws from it as it draws from a popularity law, so hot-key overlays, the
 * model's warm caches (ids are popularity ranks) and the realism flags work on real keys unchanged.
 */

/** The keyspace a key file gives. */
export interface KeySample {
  /** The CSV as read: relative paths are resolved against the profile's folder. */
  path: string;
  /** sha256 of the file's bytes: two runs with the same profile text but another sample differ. */
  sha256: string;
  /** Key names in rank order: heaviest first (file order among equal weights); file order when unweighted. */
  keys: string[];
  /** Running sum of the weights in rank order, the last 1; absent when the file has no weight column. */
  cumulative?: number[];
}

/** How a key sample is written into profile.json: what identifies it, not its (possibly millions of) keys. */
export interface KeySampleSummary {
  path: string;
  sha256: string;
  count: number;
  weighted: boolean;
}

export function summariseSample(sample: KeySample): KeySampleSummary {
  return { path: sample.path, sha256: sample.sha256, count: sample.keys.length, weighted: sample.cumulative !== undefined };
}

/** Issues past this many are not listed: a file with one mistake per line says so in the first ones. */
const MAX_ISSUES = 20;

const HEADER_HINT = 'a CSV with a header "key,weight" (weight optional), or no header: the key, then its weight';

interface Columns {
  key: number;
  weight: number | undefined;
}

/** A key file read: its sample, and the keys a memcached target would refuse (memcached-keys.ts), each at its line. */
export interface ReadKeyFile {
  sample: KeySample;
  memcachedIssues: ProfileIssue[];
}

/**
 * Reads a key file. The first row is a header when one of its cells is `key` (and then `weight`, if
 * present, is the weight column); otherwise the first column is the key and a second, if the first
 * row has one, the weight. Each issue names the CSV file, the line and the field.
 */
export async function readKeyFile(path: string): Promise<ReadKeyFile | { issues: ProfileIssue[] } | { unreadable: string }> {
  const hash = createHash('sha256');
  let input: ReturnType<typeof openInputStream>;
  try {
    input = openInputStream(path, KEY_FILE);
  } catch (error) {
    if (error instanceof InputFileError) return { unreadable: error.reason };
    throw error;
  }
  input.on('data', (chunk) => hash.update(chunk));
  // A row past the bound (a file of one endless line) is refused by the parser rather than gathered.
  const parser = input.pipe(parse({ bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, info: true, raw: true, max_record_size: KEY_FILE_ROW_MAX }));
  input.on('error', (error) => parser.destroy(error));
  const issues: ProfileIssue[] = [];
  const memcachedIssues: ProfileIssue[] = [];
  const keys: string[] = [];
  const weights: number[] = [];
  const firstLine = new Map<string, number>();
  let columns: Columns | undefined;
  const issue = (line: number, raw: string, field: number, name: string, message: string, hint: string) => {
    if (issues.length < MAX_ISSUES) issues.push({ file: path, line, column: columnOf(raw, field), path: name, message, hint });
  };
  try {
    for await (const { record, raw, info } of parser as AsyncIterable<{ record: string[]; raw: string; info: { lines: number } }>) {
      const line = info.lines;
      if (columns === undefined) {
        columns = headerColumns(record) ?? { key: 0, weight: record.length > 1 ? 1 : undefined };
        if (headerColumns(record)) continue;
      }
      const key = record[columns.key] ?? '';
      if (key === '') {
        issue(line, raw, columns.key, 'key', 'expected a key, got an empty field', HEADER_HINT);
        continue;
      }
      const seen = firstLine.get(key);
      if (seen !== undefined)
        issue(line, raw, columns.key, 'key', `key ${JSON.stringify(key)} is listed again (first on line ${seen})`, 'list each key once, with its whole weight');
      else firstLine.set(key, line);
      if (columns.weight !== undefined) {
        const text = record[columns.weight] ?? '';
        const weight = text === '' ? Number.NaN : Number(text);
        if (!Number.isFinite(weight) || weight < 0)
          issue(line, raw, columns.weight, 'weight', `expected a number ≥ 0, got ${JSON.stringify(text)}`, 'a weight is how often the key is looked up, e.g. a count');
        weights.push(weight);
      }
      const unfit = memcachedIssues.length < MAX_ISSUES ? memcachedKeyProblem(key) : undefined;
      if (unfit !== undefined)
        memcachedIssues.push({
          file: path,
          line,
          column: columnOf(raw, columns.key),
          path: 'key',
          message: `key ${shownKey(key)} ${unfit}`,
          hint: `fix or drop the key in this file: ${MEMCACHED_KEY_RULE}`,
        });
      keys.push(key);
    }
  } catch (error) {
    const unreadable = unreadableReason(error);
    if (unreadable !== undefined) return { unreadable };
    // csv-parse's own errors (an unclosed quote, …) carry the line they stopped at.
    const lines = (error as { lines?: number }).lines ?? 0;
    return { issues: [{ file: path, line: lines, column: 0, path: '', message: `CSV: ${(error as Error).message}`, hint: HEADER_HINT }] };
  }
  if (issues.length === 0 && keys.length === 0) issues.push({ file: path, line: 0, column: 0, path: '', message: 'the key file lists no keys', hint: HEADER_HINT });
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (issues.length === 0 && columns?.weight !== undefined && !(total > 0))
    issues.push({ file: path, line: 0, column: 0, path: 'weight', message: 'every weight is 0: no key could be drawn', hint: 'give the keys their lookup counts' });
  if (issues.length > 0) return { issues };
  const sha256 = hash.digest('hex');
  return { sample: columns?.weight === undefined ? { path, sha256, keys } : { path, sha256, ...rankByWeight(keys, weights, total) }, memcachedIssues };
}

/** The keys heaviest first (a stable sort: file order among equals) and their running share of the total weight. */
function rankByWeight(keys: string[], weights: number[], total: number): { keys: string[]; cumulative: number[] } {
  const order = keys.map((_, i) => i).sort((a, b) => weights[b]! - weights[a]!);
  let sum = 0;
  const cumulative = order.map((i) => (sum += weights[i]!) / total);
  cumulative[cumulative.length - 1] = 1;
  return { keys: order.map((i) => keys[i]!), cumulative };
}

function headerColumns(record: string[]): Columns | undefined {
  const names = record.map((cell) => cell.toLowerCase());
  const key = names.indexOf('key');
  if (key < 0) return undefined;
  const weight = names.indexOf('weight');
  return { key, weight: weight < 0 ? undefined : weight };
}

/** 1-based column where field `index` starts in the raw line (commas inside quotes do not count). */
function columnOf(raw: string, index: number): number {
  let field = 0;
  let quoted = false;
  for (let i = 0; i < raw.length && field < index; i++) {
    if (raw[i] === '"') quoted = !quoted;
    else if (raw[i] === ',' && !quoted) {
      field++;
      if (field === index) return i + 2;
    }
  }
  return 1;
}

/** Why the file could not be read once open (a disk error: the system's), or undefined for an error of its content. */
function unreadableReason(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).syscall === undefined ? undefined : (error as Error).message;
}
