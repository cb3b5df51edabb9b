const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function rotl32(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/** MurmurHash3 x86_32 (Austin Appleby's reference `MurmurHash3_x86_32`) over the first `length` bytes. */
export function murmur3_32(bytes: Uint8Array, seed = 0, length = bytes.length): number {
  const blocks = length & ~3;
  let h = seed >>> 0;
  for (let i = 0; i < blocks; i += 4) {
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(k, C1);
    k = rotl32(k, 15);
    k = Math.imul(k, C2);
    h ^= k;
    h = rotl32(h, 13);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  // Tail: the last 1–3 bytes, little-endian.
  const tail = length & 3;
  if (tail > 0) {
    let k = bytes[blocks]!;
    if (tail > 1) k ^= bytes[blocks + 1]! << 8;
    if (tail > 2) k ^= bytes[blocks + 2]! << 16;
    k = Math.imul(k, C1);
    k = rotl32(k, 15);
    k = Math.imul(k, C2);
    h ^= k;
  }
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
