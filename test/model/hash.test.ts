import { describe, expect, it } from 'vitest';
import { fnv1_32, fnv1a_32, hashKey, murmur3_32 } from '../../src/model/hash/index.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('key hashes (published test vectors)', () => {
  it('FNV-1 32-bit', () => {
    expect(fnv1_32(bytes(''))).toBe(0x811c9dc5);
    expect(fnv1_32(bytes('a'))).toBe(0x050c5d7e);
    expect(fnv1_32(bytes('foobar'))).toBe(0x31f0b262);
  });

  it('FNV-1a 32-bit', () => {
    expect(fnv1a_32(bytes(''))).toBe(0x811c9dc5);
    expect(fnv1a_32(bytes('a'))).toBe(0xe40c292c);
    expect(fnv1a_32(bytes('foobar'))).toBe(0xbf9cf968);
  });

  it('MurmurHash3 x86_32', () => {
    expect(murmur3_32(bytes(''), 0)).toBe(0);
    expect(murmur3_32(bytes(''), 1)).toBe(0x514e28b7);
    expect(murmur3_32(bytes('hello'), 0)).toBe(0x248bfa47);
    expect(murmur3_32(bytes('hello, world'), 0)).toBe(0x149bbb7f);
    expect(murmur3_32(bytes('The quick brown fox jumps over the lazy dog'), 0)).toBe(0x2e4ff723);
  });

  it('hashes the UTF-8 bytes of a key name', () => {
    expect(hashKey('murmur3', 'hello')).toBe(0x248bfa47);
    expect(hashKey('fnv1a_32', 'é')).toBe(fnv1a_32(new Uint8Array([0xc3, 0xa9])));
  });
});

describe('the FNV1-32 last-byte effect (Twitter 2018-04)', () => {
  // Keys that differ only in their last character: "user:12345:a" … "user:12345:z", "0"…"9", "A"…"Z".
  const variants = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'].map((c) => `user:12345:${c}`);

  it('FNV-1 changes only the low 8 bits when only the last byte changes', () => {
    const high = new Set(variants.map((k) => fnv1_32(bytes(k)) >>> 8));
    expect(high.size).toBe(1);
  });

  it('so on a hash ring (ketama-like: nearest point at or after the hash) they crowd onto one server', () => {
    // 20 servers × 160 points, placed by murmur3 of "server-i-j" — a stand-in for ketama's md5 points.
    const points = Array.from({ length: 20 * 160 }, (_, n) => ({ at: murmur3_32(bytes(`server-${n % 20}-${Math.floor(n / 20)}`)), server: n % 20 })).sort((a, b) => a.at - b.at);
    const serverOf = (h: number) => (points.find((p) => p.at >= h) ?? points[0]!).server;
    const serversUsed = (hash: (b: Uint8Array) => number) => new Set(variants.map((k) => serverOf(hash(bytes(k))))).size;
    expect(serversUsed(fnv1_32)).toBe(1);
    expect(serversUsed(fnv1a_32)).toBeGreaterThanOrEqual(10);
    expect(serversUsed((b) => murmur3_32(b, 0))).toBeGreaterThanOrEqual(10);
  });
});
