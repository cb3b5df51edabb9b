const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/**
 * FNV-1 32-bit: multiply, then xor the byte. The last byte is xored in after the final multiply,
 * so it only changes the low 8 bits of the hash — the "ignores the last byte" effect behind
 * Twitter's 2018-04 hot shards (keys that differ only at the end land next to each other on a ring).
 */
export function fnv1_32(bytes: Uint8Array, length = bytes.length): number {
  let hash = FNV32_OFFSET;
  for (let i = 0; i < length; i++) hash = Math.imul(hash, FNV32_PRIME) ^ bytes[i]!;
  return hash >>> 0;
}

/** FNV-1a 32-bit: xor the byte, then multiply, so every byte diffuses into the high bits. */
export function fnv1a_32(bytes: Uint8Array, length = bytes.length): number {
  let hash = FNV32_OFFSET;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ bytes[i]!, FNV32_PRIME);
  return hash >>> 0;
}
