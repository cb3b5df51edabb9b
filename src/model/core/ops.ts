import { MEMCACHED_OPERATIONS, type MemcachedOperation } from '../../profile/protocols/memcached/section.ts';

/*
 * The memcached operations a cache call executes, as small integers (a call and a task carry one;
 * the hot path switches on it). Codes are indexes into MEMCACHED_OPERATIONS, so get and gets come
 * first: an op below OP_SET is a read (a miss may go to the call's onMiss), every other op writes
 * or changes an item and never falls back.
 */
export const OP_GET = 0;
export const OP_GETS = 1;
export const OP_SET = 2;
export const OP_ADD = 3;
export const OP_REPLACE = 4;
export const OP_CAS = 5;
export const OP_APPEND = 6;
export const OP_PREPEND = 7;
export const OP_DELETE = 8;
export const OP_INCR = 9;
export const OP_DECR = 10;
export const OP_TOUCH = 11;
/** Not a request's op: the set a miss's fill makes (counted apart, in `fills`). */
export const OP_FILL = 12;

export function opCode(op: MemcachedOperation): number {
  return MEMCACHED_OPERATIONS.indexOf(op);
}

/** A read: get or gets (the model gives both the same answer; it holds no CAS uniques). */
export function isReadOp(op: number): boolean {
  return op < OP_SET;
}

/** The operation a kind is named after, or undefined (same rule as the memcached driver's). */
export function operationNamed(kind: string): MemcachedOperation | undefined {
  return MEMCACHED_OPERATIONS.find((op) => op === kind);
}

/**
 * The op a cache call makes for a request of `kind`: the call's own `op:`, else the operation the
 * kind is named after — a read kind on a `write: true` call is a set, as that call always was —
 * else a set for a write call and a get for any other.
 */
export function callOp(kind: string, explicit: MemcachedOperation | undefined, write: boolean): number {
  if (explicit !== undefined) return opCode(explicit);
  const named = operationNamed(kind);
  if (named !== undefined && !(write && isReadOp(opCode(named)))) return opCode(named);
  return write ? OP_SET : OP_GET;
}
