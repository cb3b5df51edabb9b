import { HUFFMAN_CODES, HUFFMAN_LENGTHS } from './hpack-huffman-table.ts';

/*
 * HPACK (RFC 7541) as a load generator needs it. Requests are encoded without the dynamic table
 * (indexed static fields and literals "without indexing"), so encoding keeps no state and a
 * template's constant fields are bytes made once. Responses are decoded in full, because the
 * server's dynamic table is shared by every later response on the connection, but only `:status`
 * is kept: a response block that is only the indexed `:status: 200` (as nginx and nghttp2 send it)
 * costs a byte compare.
 */

/** The static table's names (index 1–61); its values matter only for `:status` (8–14). */
// biome-ignore format: the static table, as RFC 7541 Appendix A lists it
const STATIC_NAMES = [
  '', ':authority', ':method', ':method', ':path', ':path', ':scheme', ':scheme', ':status', ':status', ':status', ':status', ':status',
  ':status', ':status', 'accept-charset', 'accept-encoding', 'accept-language', 'accept-ranges', 'accept',
  'access-control-allow-origin', 'age', 'allow', 'authorization', 'cache-control', 'content-disposition', 'content-encoding',
  'content-language', 'content-length', 'content-location', 'content-range', 'content-type', 'cookie', 'date', 'etag', 'expect',
  'expires', 'from', 'host', 'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified',
  'link', 'location', 'max-forwards', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'refresh', 'retry-after',
  'server', 'set-cookie', 'strict-transport-security', 'transfer-encoding', 'user-agent', 'vary', 'via', 'www-authenticate',
];
const STATIC_STATUS = [0, 0, 0, 0, 0, 0, 0, 0, 200, 204, 206, 304, 400, 404, 500];
const STATIC_COUNT = 61;
/** Static indexes of request fields (RFC 7541 Appendix A). */
export const STATIC_INDEX = { authority: 1, methodGet: 2, methodPost: 3, pathRoot: 4, path: 4, schemeHttp: 6, schemeHttps: 7 } as const;
/** An entry's size counts 32 bytes of overhead (RFC 7541 §4.1). */
const ENTRY_OVERHEAD = 32;
/** The indexed field `:status: 200`: the whole block of most responses. */
const STATUS_200 = 0x88;

/** A block that could not be decoded: the connection's compression state is lost (COMPRESSION_ERROR). */
export class HpackError extends Error {}

/** The HPACK integer `value` with an `n`-bit prefix whose high bits are `flags` (RFC 7541 §5.1). */
export function hpackInteger(value: number, n: number, flags: number): number[] {
  const max = (1 << n) - 1;
  if (value < max) return [flags | value];
  const bytes = [flags | max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) | 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}

/** A field "literal without indexing" (§6.2.2), raw strings: name by static index, or by its text when `nameIndex` is 0. */
export function literalField(nameIndex: number, name: string, value: string): Buffer {
  const head = hpackInteger(nameIndex, 4, 0);
  const nameBytes = nameIndex === 0 ? [...hpackInteger(Buffer.byteLength(name), 7, 0), ...Buffer.from(name, 'latin1')] : [];
  return Buffer.concat([Buffer.from(head), Buffer.from(nameBytes), Buffer.from(hpackInteger(Buffer.byteLength(value), 7, 0)), Buffer.from(value)]);
}

/** The static index of a request field's name, or 0. */
export function staticNameIndex(name: string): number {
  const i = STATIC_NAMES.indexOf(name, 15);
  return Math.max(i, 0);
}

/** Binary decoding tree of the Huffman code: node n's children at 2n and 2n+1; a leaf holds −1 − symbol. */
const HUFFMAN_TREE = buildHuffmanTree();

function buildHuffmanTree(): Int32Array {
  const tree = new Int32Array(2 * 512).fill(0);
  let nodes = 1;
  for (let symbol = 0; symbol < 256; symbol++) {
    const code = HUFFMAN_CODES[symbol]!;
    const length = HUFFMAN_LENGTHS[symbol]!;
    let node = 0;
    for (let bit = length - 1; bit > 0; bit--) {
      const at = 2 * node + ((code >>> bit) & 1);
      if (tree[at] === 0) tree[at] = nodes++;
      node = tree[at]!;
    }
    tree[2 * node + (code & 1)] = -1 - symbol;
  }
  return tree;
}

/** Huffman-decoded text of bytes [from, to) (latin1); padding (up to 7 one bits) ends it. */
function huffmanDecode(bytes: Uint8Array, from: number, to: number): string {
  let text = '';
  let node = 0;
  for (let i = from; i < to; i++) {
    const byte = bytes[i]!;
    for (let bit = 7; bit >= 0; bit--) {
      const next = HUFFMAN_TREE[2 * node + ((byte >>> bit) & 1)]!;
      if (next < 0) {
        text += String.fromCharCode(-1 - next);
        node = 0;
      } else if (next === 0) throw new HpackError('invalid Huffman code');
      else node = next;
    }
  }
  return text;
}

/**
 * One connection's response-header decoder: the dynamic table the server's encoder fills, and the
 * `:status` of each block. Fields other than `:status` are read only as far as the table needs them.
 */
export class HpackDecoder {
  /** Dynamic table, oldest first: index 62 is the last. */
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  private tableSize = 0;
  private maxTableSize: number;
  private pos = 0;

  /** `limit`: the SETTINGS_HEADER_TABLE_SIZE this side announced (the default 4,096). */
  constructor(private readonly limit = 4096) {
    this.maxTableSize = limit;
  }

  /**
   * The block's `:status` (0 when it has none, e.g. trailers; −1 when it is not three digits).
   * @throws HpackError when the block breaks HPACK
   */
  status(block: Uint8Array, from: number, to: number): number {
    if (to - from === 1 && block[from] === STATUS_200) return 200;
    let status = 0;
    this.pos = from;
    while (this.pos < to) {
      const b = block[this.pos]!;
      if (b & 0x80) {
        const index = this.integer(block, to, 7);
        if (index === 0) throw new HpackError('index 0');
        if (index <= 14 && index >= 8) status = STATIC_STATUS[index]!;
        else if (index > STATIC_COUNT && this.name(index) === ':status') status = statusOf(this.value(index));
        else this.name(index);
      } else if ((b & 0xe0) === 0x20) {
        const size = this.integer(block, to, 5);
        if (size > this.limit) throw new HpackError('table size update above the limit');
        this.maxTableSize = size;
        this.evict(0);
      } else {
        const indexing = (b & 0xc0) === 0x40;
        const nameIndex = this.integer(block, to, indexing ? 6 : 4);
        const name = nameIndex === 0 ? this.string(block, to) : this.name(nameIndex);
        const value = this.string(block, to);
        if (name === ':status') status = statusOf(value);
        if (indexing) this.insert(name, value);
      }
    }
    return status;
  }

  private integer(block: Uint8Array, to: number, n: number): number {
    const max = (1 << n) - 1;
    let value = block[this.pos++]! & max;
    if (value < max) return value;
    let scale = 1;
    for (;;) {
      if (this.pos >= to || scale > 2 ** 28) throw new HpackError('truncated integer');
      const b = block[this.pos++]!;
      value += (b & 127) * scale;
      scale *= 128;
      if ((b & 128) === 0) return value;
    }
  }

  private string(block: Uint8Array, to: number): string {
    const huffman = (block[this.pos]! & 0x80) !== 0;
    const length = this.integer(block, to, 7);
    const end = this.pos + length;
    if (end > to) throw new HpackError('truncated string');
    const text = huffman ? huffmanDecode(block, this.pos, end) : Buffer.from(block.buffer, block.byteOffset + this.pos, length).toString('latin1');
    this.pos = end;
    return text;
  }

  private name(index: number): string {
    if (index <= STATIC_COUNT) return STATIC_NAMES[index]!;
    const at = this.names.length - (index - STATIC_COUNT);
    if (at < 0) throw new HpackError(`index ${index} beyond the table`);
    return this.names[at]!;
  }

  private value(index: number): string {
    return this.values[this.names.length - (index - STATIC_COUNT)]!;
  }

  private insert(name: string, value: string): void {
    const size = name.length + value.length + ENTRY_OVERHEAD;
    this.evict(size);
    // An entry larger than the table empties it and is not added (§4.4).
    if (size > this.maxTableSize) return;
    this.names.push(name);
    this.values.push(value);
    this.tableSize += size;
  }

  /** Evicts oldest entries until `room` more bytes fit. */
  private evict(room: number): void {
    while (this.names.length > 0 && this.tableSize + room > this.maxTableSize) {
      this.tableSize -= this.names.shift()!.length + this.values.shift()!.length + ENTRY_OVERHEAD;
    }
  }
}

function statusOf(value: string): number {
  return /^[1-5]\d\d$/.test(value) ? Number(value) : -1;
}
