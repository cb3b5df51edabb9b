const ABSENT = -2;
const NONE = -1;

/**
 * The key sets of every shard of one cache as intrusive doubly-linked LRU lists over entry ids: O(1)
 * per lookup with no map and no allocation. Holds keys, not values.
 *
 * Two layouts. Single-copy (the default): one entry per key, so a key is on one shard at a time —
 * when a membership change moves a key, filling it on its new shard drops the copy on the old one.
 * Per-shard copies (`copies: true`, for small keyspaces): one entry per (key, shard), so clients
 * with different views of the ring can fill the same key on several shards and an old copy stays
 * readable — the stale reads of Twitter 2011-08.
 */
export class ShardedLru {
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  readonly size: Int32Array;
  /** Single-copy layout: shard holding each key; meaningful only while the key is present. */
  private readonly home: Int32Array;
  /** Per-shard copies: the value version each entry holds (what a reader gets). */
  readonly version: Uint32Array;
  evictions = 0;
  /** Item memory (itemMemory): bytes each shard's entries take, and each entry's; null when capacity counts keys only. */
  private bytes: { used: Float64Array; of: Uint32Array; limit: number; sizeOf: (key: number) => number } | null = null;

  constructor(
    keyCount: number,
    private readonly shards: number,
    /** Keys per shard; Infinity = never evict. */
    readonly capacity: number,
    readonly copies = false,
  ) {
    const entries = copies ? keyCount * shards : keyCount;
    this.prev = new Int32Array(entries).fill(ABSENT);
    this.next = new Int32Array(entries).fill(ABSENT);
    this.head = new Int32Array(shards).fill(NONE);
    this.tail = new Int32Array(shards).fill(NONE);
    this.size = new Int32Array(shards);
    this.home = new Int32Array(copies ? 0 : keyCount);
    this.version = new Uint32Array(copies ? entries : 0);
  }

  /**
   * Caps each shard's entries by bytes as well (memcached -m): an entry of `key` takes `sizeOf(key)`
   * (its slab chunk), and inserting past `limit` evicts from the tail until the shard fits.
   */
  limitBytes(limit: number, sizeOf: (key: number) => number): void {
    this.bytes = { used: new Float64Array(this.shards), of: new Uint32Array(this.prev.length), limit, sizeOf };
  }

  /** Bytes the shard's entries take (0 without itemMemory). */
  bytesUsed(shard: number): number {
    return this.bytes === null ? 0 : this.bytes.used[shard]!;
  }

  /** The entry of (key, shard). */
  entry(key: number, shard: number): number {
    return this.copies ? key * this.shards + shard : key;
  }

  /** True when some shard holds `key`. */
  has(key: number): boolean {
    return this.copiesOf(key) > 0;
  }

  /** Shards holding a copy of `key` (per-shard copies; 0 or 1 otherwise). */
  copiesOf(key: number): number {
    if (!this.copies) return this.prev[key] !== ABSENT ? 1 : 0;
    let n = 0;
    for (let s = 0; s < this.shards; s++) if (this.prev[key * this.shards + s] !== ABSENT) n++;
    return n;
  }

  /** True when `shard` holds a copy of `key` (no LRU change). */
  holds(key: number, shard: number): boolean {
    const e = this.entry(key, shard);
    return this.prev[e] !== ABSENT && (this.copies || this.home[e] === shard);
  }

  /** A get: true on a hit, which also makes the entry most recently used. */
  touch(key: number, shard: number): boolean {
    const e = this.entry(key, shard);
    if (this.prev[e] === ABSENT || (!this.copies && this.home[e] !== shard)) return false;
    if (this.head[shard] !== e) {
      this.unlink(e, shard);
      this.linkFront(e, shard);
    }
    return true;
  }

  /** A set: the key becomes most recently used; the least recently used entry goes if the shard is full. */
  insert(key: number, shard: number): void {
    if (this.touch(key, shard)) return;
    if (this.capacity <= 0) return;
    const e = this.entry(key, shard);
    if (this.prev[e] !== ABSENT) {
      // Single-copy: present on its old shard (membership changed); the copy there goes.
      const old = this.home[e]!;
      this.unlink(e, old);
      this.size[old]!--;
      if (this.bytes !== null) this.bytes.used[old]! -= this.bytes.of[e]!;
    }
    if (!this.copies) this.home[e] = shard;
    this.linkFront(e, shard);
    if (this.bytes !== null) return this.fitBytes(e, key, shard);
    if (++this.size[shard]! > this.capacity) this.evictTail(shard);
  }

  /** itemMemory: the new entry's bytes are counted, then the tail goes until both the key and byte caps hold. */
  private fitBytes(e: number, key: number, shard: number): void {
    const bytes = this.bytes!;
    const size = bytes.sizeOf(key);
    bytes.of[e] = size;
    bytes.used[shard]! += size;
    this.size[shard]!++;
    while (this.size[shard]! > 1 && (this.size[shard]! > this.capacity || bytes.used[shard]! > bytes.limit)) this.evictTail(shard);
  }

  private evictTail(shard: number): void {
    const victim = this.tail[shard]!;
    this.unlink(victim, shard);
    this.prev[victim] = ABSENT;
    this.next[victim] = ABSENT;
    this.size[shard]!--;
    if (this.bytes !== null) this.bytes.used[shard]! -= this.bytes.of[victim]!;
    this.evictions++;
  }

  /** Drops (key, shard) if present there (an expired entry). */
  remove(key: number, shard: number): void {
    const e = this.entry(key, shard);
    if (this.prev[e] === ABSENT || (!this.copies && this.home[e] !== shard)) return;
    this.unlink(e, shard);
    this.prev[e] = ABSENT;
    this.next[e] = ABSENT;
    this.size[shard]!--;
    if (this.bytes !== null) this.bytes.used[shard]! -= this.bytes.of[e]!;
  }

  /** Empties one shard (its process died: memory is gone). */
  clear(shard: number): void {
    let e = this.head[shard]!;
    while (e !== NONE) {
      const next = this.next[e]!;
      this.prev[e] = ABSENT;
      this.next[e] = ABSENT;
      e = next;
    }
    this.head[shard] = NONE;
    this.tail[shard] = NONE;
    this.size[shard] = 0;
    if (this.bytes !== null) this.bytes.used[shard] = 0;
  }

  private linkFront(e: number, shard: number): void {
    const first = this.head[shard]!;
    this.prev[e] = NONE;
    this.next[e] = first;
    if (first !== NONE) this.prev[first] = e;
    else this.tail[shard] = e;
    this.head[shard] = e;
  }

  private unlink(e: number, shard: number): void {
    const p = this.prev[e]!;
    const n = this.next[e]!;
    if (p !== NONE) this.next[p] = n;
    else this.head[shard] = n;
    if (n !== NONE) this.prev[n] = p;
    else this.tail[shard] = p;
  }
}
