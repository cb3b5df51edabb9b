import { describe, expect, it } from 'vitest';
import { KetamaRing } from '../../src/model/components/cache/ring.ts';
import { hashKey, md5_32 } from '../../src/model/hash/index.ts';

const ring = (n: number) => {
  const r = new KetamaRing((s) => `cache-${s}:11211`);
  r.build(Array.from({ length: n }, (_, i) => i));
  return r;
};

describe('ketama ring', () => {
  it('md5 key hash: first four digest bytes, little-endian', () => {
    // md5("") = d41d8cd98f00b204e9800998ecf8427e
    expect(md5_32(new Uint8Array(0))).toBe(0xd98c1dd4);
  });

  it('adding one server to N moves about 1/(N+1) of the keys, all of them to the new server', () => {
    const before = ring(32);
    const after = ring(33);
    let moved = 0;
    const keys = 20_000;
    for (let k = 0; k < keys; k++) {
      const h = hashKey('murmur3', `user:${k}`);
      const a = before.owner(h);
      const b = after.owner(h);
      if (a !== b) {
        moved++;
        expect(b).toBe(32);
      }
    }
    // 1/33 ≈ 3.0%; 160 points per server keep the new server's arc within a factor ~1.5 of that.
    expect(moved / keys).toBeGreaterThan(0.02);
    expect(moved / keys).toBeLessThan(0.045);
  });

  it('FNV1-32 puts keys that differ only in the last byte on one server; FNV1a-32 and murmur3 spread them (2018-04)', () => {
    const family = 'abcdefghijklmnop'.split('').map((c) => `user:celebrity:profile:${c}`);
    for (const n of [20, 100, 600]) {
      const r = ring(n);
      const servers = (hash: 'fnv1_32' | 'fnv1a_32' | 'murmur3') => new Set(family.map((k) => r.owner(hashKey(hash, k)))).size;
      expect(servers('fnv1_32')).toBe(1);
      // 16 keys thrown at n servers: at least half distinct for n ≥ 20.
      expect(servers('fnv1a_32')).toBeGreaterThanOrEqual(8);
      expect(servers('murmur3')).toBeGreaterThanOrEqual(8);
    }
  });

  it('ownerSkipping walks on to the next usable server (a client that ejected one)', () => {
    const r = ring(10);
    const h = hashKey('murmur3', 'k');
    const first = r.owner(h);
    const next = r.ownerSkipping(h, (s) => s !== first);
    expect(next).not.toBe(first);
    expect(next).toBeGreaterThanOrEqual(0);
    expect(r.ownerSkipping(h, () => false)).toBe(-1);
  });
});
