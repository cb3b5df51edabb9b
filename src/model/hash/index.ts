import type { HashName } from '../../profile/topology/cache.ts';
import { fnv1_32, fnv1a_32 } from './fnv.ts';
import { md5_32 } from './md5.ts';
import { murmur3_32 } from './murmur3.ts';

export { fnv1_32, fnv1a_32 } from './fnv.ts';
export { murmur3_32 } from './murmur3.ts';
export { md5_32 } from './md5.ts';

const HASHES: Readonly<Record<HashName, (bytes: Uint8Array, length: number) => number>> = {
  fnv1_32,
  fnv1a_32,
  murmur3: (bytes, length) => murmur3_32(bytes, 0, length),
  md5: md5_32,
};

const encoder = new TextEncoder();
/** Reused for every key name, so hashing allocates nothing (a UTF-8 char is at most 3 bytes per UTF-16 unit). */
let scratch = new Uint8Array(256);

/** Hashes a key's wire name (its UTF-8 bytes) with the named function; 32-bit unsigned. */
export function hashKey(name: HashName, key: string): number {
  if (key.length * 3 > scratch.length) scratch = new Uint8Array(key.length * 3);
  const { written } = encoder.encodeInto(key, scratch);
  return HASHES[name](scratch, written);
}
