import { describe, expect, it } from 'vitest';
import { csvText } from '../../src/report/csv.ts';

describe('csvText', () => {
  it('quotes as RFC 4180 has it: commas, quotes and line breaks; quotes doubled; CRLF between records', () => {
    expect(
      csvText([
        ['name', 'value'],
        ['a,b', 'say "hi"'],
        ['two\nlines', 'cr\ronly'],
        [true, undefined],
        [0.25, -1],
      ]),
    ).toBe('name,value\r\n"a,b","say ""hi"""\r\n"two\nlines","cr\ronly"\r\ntrue,\r\n0.25,-1\r\n');
  });
});
