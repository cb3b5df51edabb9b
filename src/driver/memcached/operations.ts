import { MEMCACHED_OPERATIONS, type MemcachedOperation } from '../../profile/protocols/memcached/section.ts';
import type { MemcachedOperationCounts } from '../../profile/protocols/memcached/spec.ts';
import {
  OP_ADD,
  OP_APPEND,
  OP_DECREMENT,
  OP_DELETE,
  OP_GET,
  OP_INCREMENT,
  OP_PREPEND,
  OP_REPLACE,
  OP_SET,
  OP_TOUCH,
  STATUS_EXISTS,
  STATUS_NON_NUMERIC,
  STATUS_NOT_FOUND,
  STATUS_NOT_STORED,
  STATUS_OK,
} from './binary-connection.ts';

/*
 * The operations the driver sends, indexed as MEMCACHED_OPERATIONS lists them, and the answers
 * that are outcomes rather than failures. NOT_FOUND, EXISTS, NOT_STORED and a non-numeric counter
 * are what the cache says about the key — a request that gets one succeeded — so they are counted
 * per operation, as memcached's own stats count them; any other status is a server error.
 */

export const OPERATION_INDEX = Object.fromEntries(MEMCACHED_OPERATIONS.map((op, i) => [op, i])) as Record<MemcachedOperation, number>;

const OPCODES: Record<MemcachedOperation, number> = {
  get: OP_GET,
  gets: OP_GET,
  set: OP_SET,
  add: OP_ADD,
  replace: OP_REPLACE,
  cas: OP_SET,
  append: OP_APPEND,
  prepend: OP_PREPEND,
  delete: OP_DELETE,
  incr: OP_INCREMENT,
  decr: OP_DECREMENT,
  touch: OP_TOUCH,
};

/** The wire opcode of each operation (gets is a get; cas is a set that carries a CAS unique). */
export const OPCODE_OF = Uint8Array.from(MEMCACHED_OPERATIONS, (op) => OPCODES[op]);

/** Reads: each key counts as a hit (found) or a miss (not found). */
export function isRead(operation: number): boolean {
  return operation === OPERATION_INDEX.get || operation === OPERATION_INDEX.gets;
}

/** The outcome columns of OperationCounts, in this order. */
const OUTCOMES = ['ok', 'notFound', 'exists', 'notStored', 'nonNumeric'] as const satisfies readonly (keyof MemcachedOperationCounts)[];
const OUTCOME_OF_STATUS = new Map<number, number>([
  [STATUS_OK, 0],
  [STATUS_NOT_FOUND, 1],
  [STATUS_EXISTS, 2],
  [STATUS_NOT_STORED, 3],
  [STATUS_NON_NUMERIC, 4],
]);

/** Answers by operation and outcome, in one typed array: counting one allocates nothing. */
export class OperationCounts {
  private readonly counts = new Float64Array(MEMCACHED_OPERATIONS.length * OUTCOMES.length);

  /** Counts an answer; false when its status is no outcome (a server error). */
  answer(operation: number, status: number): boolean {
    const outcome = status === STATUS_OK ? 0 : OUTCOME_OF_STATUS.get(status);
    if (outcome === undefined) return false;
    this.counts[operation * OUTCOMES.length + outcome]!++;
    return true;
  }

  /** Counts a read's keys: `found` hits, `missed` misses. */
  keys(operation: number, found: number, missed: number): void {
    this.counts[operation * OUTCOMES.length]! += found;
    this.counts[operation * OUTCOMES.length + 1]! += missed;
  }

  /** Every operation that was answered at least once, with its outcomes. */
  toJSON(): Partial<Record<MemcachedOperation, MemcachedOperationCounts>> {
    const out: Partial<Record<MemcachedOperation, MemcachedOperationCounts>> = {};
    MEMCACHED_OPERATIONS.forEach((op, i) => {
      const row = this.counts.subarray(i * OUTCOMES.length, (i + 1) * OUTCOMES.length);
      if (row.some((n) => n > 0)) out[op] = Object.fromEntries(OUTCOMES.map((name, j) => [name, row[j]!])) as unknown as MemcachedOperationCounts;
    });
    return out;
  }
}
