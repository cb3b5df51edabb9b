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

/**
 * The Huffman code as a nibble automaton (nghttp2's way): from state (a node of the code's tree) and
 * four input bits, the state reached and the symbol completed on the way, if any (codes are 5 bits
 * or longer, so at most one per nibble). −1 in NEXT: the bits lead nowhere (EOS or beyond).
 */
const { NEXT, SYMBOL, ACCEPTS } = buildHuffmanAutomaton();

function buildHuffmanAutomaton(): { NEXT: Int16Array; SYMBOL: Int16Array; ACCEPTS: Uint8Array } {
  // The tree first: node n's children at 2n, 2n+1; a leaf holds −1 − symbol, an absent child 0.
  const tree = new Int32Array(2 * 512);
  let nodes = 1;
  for (let symbol = 0; symbol < 256; symbol++) {
    const code = HUFFMAN_CODES[symbol]!;
    let node = 0;
    for (let bit = HUFFMAN_LENGTHS[symbol]! - 1; bit > 0; bit--) {
      const at = 2 * node + ((code >>> bit) & 1);
      if (tree[at] === 0) tree[at] = nodes++;
      node = tree[at]!;
    }
    tree[2 * node + (code & 1)] = -1 - symbol;
  }
  const next = new Int16Array(nodes * 16).fill(-1);
  const symbolOf = new Int16Array(nodes * 16).fill(-1);
  // A state may end a string when the bits since the last symbol are all ones (padding, < 8 bits).
  const accepts = new Uint8Array(nodes);
  const depth = new Uint8Array(nodes);
  const allOnes = new Uint8Array(nodes);
  allOnes[0] = 1;
  for (let node = 0; node < nodes; node++) {
    for (const bit of [0, 1]) {
      const child = tree[2 * node + bit]!;
      if (child > 0) {
        depth[child] = depth[node]! + 1;
        allOnes[child] = allOnes[node]! & bit;
      }
    }
  }
  for (let node = 0; node < nodes; node++) accepts[node] = node === 0 || (allOnes[node] === 1 && depth[node]! < 8) ? 1 : 0;
  for (let state = 0; state < nodes; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let symbol = -1;
      let valid = true;
      for (let bit = 3; bit >= 0; bit--) {
        const child = tree[2 * node + ((nibble >>> bit) & 1)]!;
        if (child < 0) {
          symbol = -1 - child;
          node = 0;
        } else if (child === 0) {
          valid = false;
          break;
        } else node = child;
      }
      if (!valid) continue;
      next[state * 16 + nibble] = node;
      symbolOf[state * 16 + nibble] = symbol;
    }
  }
  return { NEXT: next, SYMBOL: symbolOf, ACCEPTS: accepts };
}

/**
 * Decodes the Huffman string in bytes [from, to): its text when `text` is set (latin1), else only
 * its length in octets, which is all the dynamic table's accounting needs of a value nobody reads.
 */
function huffman(bytes: Uint8Array, from: number, to: number, text: boolean): string | number {
  let state = 0;
  let length = 0;
  let decoded = '';
  for (let i = from; i < to; i++) {
    const byte = bytes[i]!;
    for (let shift = 4; shift >= 0; shift -= 4) {
      const at = state * 16 + ((byte >>> shift) & 15);
      state = NEXT[at]!;
      if (state < 0) throw new HpackError('invalid Huffman code');
      const symbol = SYMBOL[at]!;
      if (symbol >= 0) {
        length++;
        if (text) decoded += String.fromCharCode(symbol);
      }
    }
  }
  if (ACCEPTS[state] !== 1) throw new HpackError('invalid Huffman padding');
  return text ? decoded : length;
}

/** What the decoder keeps of a dynamic-table entry: whether it is `:status` (and its value), and its size. */
const NOT_STATUS = -2;

/**
 * One connection's response-header decoder: the dynamic table the server's encoder fills, and the
 * `:status` of each block. Of other fields only their sizes are kept, for the table's eviction.
 */
export class HpackDecoder {
  /** Dynamic table, oldest first (index 62 is the last): per entry its status (NOT_STATUS for any other name), name length and size. */
  private readonly statuses: number[] = [];
  private readonly nameLengths: number[] = [];
  private readonly sizes: number[] = [];
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
        const entry = this.entryStatus(this.integer(block, to, 7));
        if (entry !== NOT_STATUS) status = entry;
      } else if ((b & 0xe0) === 0x20) {
        const size = this.integer(block, to, 5);
        if (size > this.limit) throw new HpackError('table size update above the limit');
        this.maxTableSize = size;
        this.evict(0);
      } else {
        const indexing = (b & 0xc0) === 0x40;
        const nameIndex = this.integer(block, to, indexing ? 6 : 4);
        let nameLength = 0;
        let isStatus: boolean;
        if (nameIndex === 0) {
          const name = this.string(block, to, true) as string;
          nameLength = name.length;
          isStatus = name === ':status';
        } else {
          isStatus = this.entryStatus(nameIndex) !== NOT_STATUS;
          nameLength = indexing ? this.nameLength(nameIndex) : 0;
        }
        if (!indexing && !isStatus) {
          this.skipString(block, to);
          continue;
        }
        const value = this.string(block, to, isStatus);
        const fieldStatus = isStatus ? statusOf(value as string) : NOT_STATUS;
        if (isStatus) status = fieldStatus;
        if (indexing) this.insert(fieldStatus, nameLength, nameLength + (isStatus ? (value as string).length : (value as number)) + ENTRY_OVERHEAD);
      }
    }
    return status;
  }

  /** The status an index stands for, or NOT_STATUS. */
  private entryStatus(index: number): number {
    if (index === 0) throw new HpackError('index 0');
    if (index <= STATIC_COUNT) return index >= 8 && index <= 14 ? STATIC_STATUS[index]! : NOT_STATUS;
    const at = this.statuses.length - (index - STATIC_COUNT);
    if (at < 0) throw new HpackError(`index ${index} beyond the table`);
    return this.statuses[at]!;
  }

  /** The length in octets of the name at `index` (already checked by entryStatus). */
  private nameLength(index: number): number {
    if (index <= STATIC_COUNT) return STATIC_NAMES[index]!.length;
    return this.nameLengths[this.statuses.length - (index - STATIC_COUNT)]!;
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

  /** The string's text when `text`, else only its length in octets (a value nobody reads is not built). */
  private string(block: Uint8Array, to: number, text: boolean): string | number {
    const isHuffman = (block[this.pos]! & 0x80) !== 0;
    const length = this.integer(block, to, 7);
    const end = this.pos + length;
    if (end > to) throw new HpackError('truncated string');
    const from = this.pos;
    this.pos = end;
    if (isHuffman) return huffman(block, from, end, text);
    return text ? Buffer.from(block.buffer, block.byteOffset + from, length).toString('latin1') : length;
  }

  /** Passes over a string that neither the table nor the status needs (a literal not indexed). */
  private skipString(block: Uint8Array, to: number): void {
    const length = this.integer(block, to, 7);
    this.pos += length;
    if (this.pos > to) throw new HpackError('truncated string');
  }

  private insert(status: number, nameLength: number, size: number): void {
    this.evict(size);
    // An entry larger than the table empties it and is not added (§4.4).
    if (size > this.maxTableSize) return;
    this.statuses.push(status);
    this.nameLengths.push(nameLength);
    this.sizes.push(size);
    this.tableSize += size;
  }

  /** Evicts oldest entries until `room` more bytes fit. */
  private evict(room: number): void {
    while (this.sizes.length > 0 && this.tableSize + room > this.maxTableSize) {
      this.tableSize -= this.sizes.shift()!;
      this.statuses.shift();
      this.nameLengths.shift();
    }
  }
}

function statusOf(value: string): number {
  return /^[1-5]\d\d$/.test(value) ? Number(value) : -1;
}
