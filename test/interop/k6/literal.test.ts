import { describe, expect, it } from 'vitest';
import { literal } from '../../../src/interop/k6/export/literal.ts';

/* The exporter writes the profile's data as TypeScript literals: whatever a string holds, the literal evaluates back to it. */

describe('literal', () => {
  it('evaluates back to the value, whatever its strings hold', () => {
    const value = {
      plain: 'GET',
      'content-type': 'it\'s "quoted" \\ and\nnew\u2028lines */ ${x} `tick`',
      nested: { list: [1, 2.5, -3e-7, null, true], objects: [{ a: 1 }, { b: 'two' }], empty: [], none: {} },
      'http_req_duration{window:measured}': ['p(99)<250'],
    };
    const text = literal(value);
    expect(new Function(`return ${text};`)()).toEqual(value);
    expect(text).toContain("'http_req_duration{window:measured}': ['p(99)<250'],");
    expect(text).toContain("  plain: 'GET',");
  });
});
