import { createHash } from 'node:crypto';

/**
 * ketama's key hash (libmemcached `hashkit_md5`, twemproxy `hash_md5`): the first four bytes of the
 * MD5 digest, little-endian. node:crypto allocates per call; the model hashes each key once and
 * caches its shard, so this is never on the per-request path.
 */
export function md5_32(bytes: Uint8Array, length = bytes.length): number {
  const d = createHash('md5').update(bytes.subarray(0, length)).digest();
  return (d[0]! | (d[1]! << 8) | (d[2]! << 16) | (d[3]! << 24)) >>> 0;
}

/** The 16-byte MD5 digest of a string (ketama derives four ring points from each). */
export function md5Digest(text: string): Buffer {
  return createHash('md5').update(text).digest();
}
