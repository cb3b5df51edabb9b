import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/profile/fingerprint.ts';

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: null } })).toBe('{"a":{"c":null,"d":[3,1]},"b":1}');
  });

  it('keeps "inf" limits apart from finite ones and drops undefined fields', () => {
    expect(canonicalJson({ workers: Number.POSITIVE_INFINITY, queue: undefined })).toBe('{"workers":"Infinity"}');
  });
});
