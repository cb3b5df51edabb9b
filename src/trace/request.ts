import type { TraceLayout } from './columns.ts';

/** The operations of the cache-trace format, in its order; a trace's other words count as `other`. */
export const TRACE_OPERATIONS = ['get', 'gets', 'set', 'add', 'replace', 'cas', 'append', 'prepend', 'delete', 'incr', 'decr'] as const;
export type TraceOperation = (typeof TRACE_OPERATIONS)[number];
export const OTHER_OPERATION = TRACE_OPERATIONS.length;

/** Operations that store a value (and carry the TTL the client set). */
const WRITES: ReadonlySet<string> = new Set<TraceOperation>(['set', 'add', 'replace', 'cas', 'append', 'prepend', 'incr', 'decr']);
export const isWrite = (operation: number): boolean => operation < OTHER_OPERATION && WRITES.has(TRACE_OPERATIONS[operation]!);

/**
 * One request of a trace, parsed in place: a reader fills the same object for every line, so
 * reading a billion lines makes a billion keys, not a billion objects.
 */
export interface TraceRequest {
  /** Seconds, in the trace's own clock. */
  timestamp: number;
  key: string;
  keySize: number;
  valueSize: number;
  client: string;
  /** An index into TRACE_OPERATIONS, or OTHER_OPERATION. */
  operation: number;
  /** The word of an operation the format does not name (OTHER_OPERATION); '' otherwise. */
  otherOperation: string;
  /** Seconds; 0 when the request sets none. */
  ttl: number;
}

export function emptyRequest(): TraceRequest {
  return { timestamp: 0, key: '', keySize: 0, valueSize: 0, client: '', operation: 0, otherOperation: '', ttl: 0 };
}

/** The operations' words as bytes, matched in the line itself: no string is made for a word the format knows. */
const OPERATION_WORDS = TRACE_OPERATIONS.map((name) => Buffer.from(name, 'latin1'));

/** The most fields a line may have: more is a different format, named rather than guessed. */
const MAX_FIELDS = 64;

/** Parses lines of one layout into one reused request; `problem` says why the last line could not be read. */
export class TraceLineParser {
  readonly request = emptyRequest();
  problem = '';
  private readonly starts = new Int32Array(MAX_FIELDS + 1);
  /** The fields a line needs: one past the last column the layout reads. */
  private readonly needed: number;

  constructor(private readonly layout: TraceLayout) {
    this.needed = Math.max(...Object.values(layout.columns)) + 1;
  }

  /** Fills `request` from bytes [start, end) of `bytes`; false (and `problem`) when the line is not a request. */
  parse(bytes: Buffer, start: number, end: number): boolean {
    const fields = this.split(bytes, start, end);
    if (fields < 0) return this.fail(`more than ${MAX_FIELDS} fields`);
    const { columns } = this.layout;
    const r = this.request;
    if (fields < this.needed) return this.fail(`${fields} field${fields === 1 ? '' : 's'}, expected at least ${this.needed}`);
    const timestamp = this.number(bytes, columns.timestamp!);
    if (!(timestamp >= 0)) return this.fail(`field timestamp (column ${columns.timestamp! + 1}): not a number ≥ 0`);
    r.timestamp = timestamp * this.layout.secondsPerUnit;
    r.key = this.text(bytes, columns.key!);
    if (r.key === '') return this.fail(`field key (column ${columns.key! + 1}): empty`);
    r.keySize = columns.keySize === undefined ? r.key.length : this.number(bytes, columns.keySize);
    r.valueSize = columns.valueSize === undefined ? 0 : this.number(bytes, columns.valueSize);
    r.ttl = columns.ttl === undefined ? 0 : this.number(bytes, columns.ttl);
    for (const field of ['keySize', 'valueSize', 'ttl'] as const) if (!(r[field] >= 0)) return this.fail(`field ${field} (column ${columns[field]! + 1}): not a whole number ≥ 0`);
    r.client = columns.client === undefined ? '' : this.text(bytes, columns.client);
    this.parseOperation(bytes);
    return true;
  }

  private parseOperation(bytes: Buffer): void {
    const r = this.request;
    const column = this.layout.columns.operation;
    r.otherOperation = '';
    if (column === undefined) return void (r.operation = 0);
    const from = this.starts[column]!;
    const to = this.starts[column + 1]! - 1;
    r.operation = OPERATION_WORDS.findIndex((word) => word.length === to - from && bytes.compare(word, 0, word.length, from, to) === 0);
    if (r.operation >= 0) return;
    r.operation = OTHER_OPERATION;
    r.otherOperation = this.text(bytes, column);
  }

  private fail(problem: string): false {
    this.problem = problem;
    return false;
  }

  /** Field i spans starts[i] .. starts[i + 1] − 1 (the delimiter). The count, or −1 over MAX_FIELDS. */
  private split(bytes: Buffer, start: number, end: number): number {
    const delimiter = this.layout.delimiter;
    let fields = 0;
    this.starts[0] = start;
    for (let i = start; i < end; i++) {
      if (bytes[i] !== delimiter) continue;
      if (++fields === MAX_FIELDS) return -1;
      this.starts[fields] = i + 1;
    }
    this.starts[++fields] = end + 1;
    return fields;
  }

  private text(bytes: Buffer, field: number): string {
    return bytes.toString('latin1', this.starts[field]!, this.starts[field + 1]! - 1);
  }

  /** A decimal number (digits, one optional point); NaN for anything else, so a corrupt field is named. */
  private number(bytes: Buffer, field: number): number {
    const from = this.starts[field]!;
    const to = this.starts[field + 1]! - 1;
    if (from >= to) return Number.NaN;
    let value = 0;
    let scale = 0;
    for (let i = from; i < to; i++) {
      const c = bytes[i]!;
      if (c >= 0x30 && c <= 0x39) {
        value = value * 10 + (c - 0x30);
        if (scale > 0) scale *= 10;
      } else if (c === 0x2e && scale === 0) scale = 1;
      else return Number.NaN;
    }
    return scale > 0 ? value / scale : value;
  }
}
