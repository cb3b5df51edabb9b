import type { Sampler } from '../../../schedule/sample.ts';
import type { Keyspace } from '../../../schedule/types.ts';
import { keyIds } from '../../../schedule/keys.ts';

/*
 * What an item costs memcached's memory (itemMemory): its header, key and value rounded up to the
 * chunk of its slab class. memcached 1.6 (64-bit): a 48-byte item header, 8 bytes of CAS, the key
 * and its NUL, the value and its "\r\n"; the chunk sizes start at 96 bytes and grow by the factor
 * (-f, 1.25), each rounded up to 8. What the model leaves out: memcached hands memory to its slab
 * classes a 1 MB page at a time and runs an LRU per class (segmented hot/warm/cold, an item bumped
 * at most once a minute); the model keeps one LRU per shard over chunk bytes.
 */

const ITEM_HEADER = 48 + 8;
const FIRST_CHUNK = 96;
/** memcached's slab_chunk_max: larger items are chained from chunks of this size (a page is 1 MB). */
const CHUNK_MAX = 512 * 1024;

/** Chunk sizes of the slab classes, smallest first, up to the largest chunk. */
export function slabChunks(growthFactor: number): number[] {
  const chunks: number[] = [];
  for (let size = FIRST_CHUNK; size < CHUNK_MAX; size = Math.ceil((size * growthFactor) / 8) * 8) chunks.push(size);
  chunks.push(CHUNK_MAX);
  return chunks;
}

/** Bytes an item of this key and value takes: the chunk it fits, or whole max chunks for a large one. */
export function itemChunkBytes(chunks: readonly number[], keyBytes: number, valueBytes: number): number {
  const total = ITEM_HEADER + keyBytes + 1 + valueBytes + 2;
  if (total > CHUNK_MAX) return Math.ceil(total / CHUNK_MAX) * CHUNK_MAX;
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (chunks[mid]! >= total) hi = mid;
    else lo = mid + 1;
  }
  return chunks[lo]!;
}

/** Per key: its item's chunk bytes, with its value size drawn once (a key keeps its size, as the NIC's does). */
export function itemSizes(keyspace: Keyspace, valueSize: Sampler, growthFactor: number): (key: number) => number {
  const chunks = slabChunks(growthFactor);
  const sizes = new Uint32Array(keyIds(keyspace));
  return (key) => {
    let bytes = sizes[key]!;
    if (bytes === 0) {
      bytes = itemChunkBytes(chunks, Buffer.byteLength(keyspace.keyName(key)), valueSize());
      sizes[key] = bytes;
    }
    return bytes;
  };
}
