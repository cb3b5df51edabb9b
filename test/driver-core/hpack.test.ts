import { describe, expect, it } from 'vitest';
import { HpackDecoder, HpackError } from '../../src/driver/http/hpack.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const statusOf = (decoder: HpackDecoder, block: Buffer) => decoder.status(block, 0, block.length);

// Fields from RFC 7541 Appendix C: ":authority: www.example.com" Huffman-coded (C.4.1), then
// ":status: 302" and ":status: 307" Huffman-coded, with incremental indexing (C.6.1, C.6.2).
const AUTHORITY = '41 8c f1e3 c2e5 f23a 6ba0 ab90 f4ff';
const STATUS_302 = '48 82 6402';
const STATUS_307 = '48 83 640e ff';

describe('HPACK response decoding (status only, the dynamic table in full)', () => {
  it('reads a status from the static table, a Huffman literal and the dynamic table', () => {
    const decoder = new HpackDecoder();
    expect(statusOf(decoder, hex('88'))).toBe(200);
    expect(statusOf(decoder, hex('8d'))).toBe(404);
    expect(statusOf(decoder, hex(AUTHORITY + STATUS_302))).toBe(302);
    // Index 62 is the newest entry, 63 the one before.
    expect(statusOf(decoder, hex('be'))).toBe(302);
    expect(statusOf(decoder, hex('bf'))).toBe(0);
  });

  it('evicts the oldest entries when the table is full (an entry is its bytes + 32)', () => {
    // 57 + 42 bytes fill a 100-byte table; 42 more evict the authority.
    const decoder = new HpackDecoder(100);
    statusOf(decoder, hex(AUTHORITY + STATUS_302 + STATUS_307));
    expect(statusOf(decoder, hex('be'))).toBe(307);
    expect(statusOf(decoder, hex('bf'))).toBe(302);
    expect(() => statusOf(decoder, hex('c0'))).toThrow(HpackError);
  });

  it('reads raw literals, and a status that is not three digits as malformed (−1)', () => {
    const decoder = new HpackDecoder();
    expect(statusOf(decoder, Buffer.from([0x08, 0x03, ...Buffer.from('503')]))).toBe(503);
    expect(statusOf(decoder, Buffer.from([0x08, 0x02, ...Buffer.from('20')]))).toBe(-1);
    expect(statusOf(decoder, Buffer.from([0x00, 0x01, 0x78, 0x01, 0x79]))).toBe(0);
  });

  it('refuses what breaks HPACK: index 0, a truncated string, a table size above the limit', () => {
    expect(() => statusOf(new HpackDecoder(), hex('80'))).toThrow(HpackError);
    expect(() => statusOf(new HpackDecoder(), hex('48 85 6402'))).toThrow(HpackError);
    expect(() => statusOf(new HpackDecoder(4096), hex('3f e2 1f'))).toThrow(HpackError);
  });
});
