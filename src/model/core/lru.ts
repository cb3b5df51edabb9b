const ABSENT = -2;
const NONE = -1;

/**
 * The key sets of every shard of one cache as intrusive doubly-linked LRU lists over key ids. A
 * key lives on exactly one shard, so one prev/next slot per key id serves all shards: O(1) per
 * lookup with no map and no allocation. Holds keys, not values (v1 counts keys, not bytes).
 */
export class ShardedLru {
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  readonly size: Int32Array;
  evictions = 0;

  constructor(
    keyCount: number,
    shards: number,
    /** Keys per shard; Infinity = never evict. */
    readonly capacity: number,
  ) {
    this.prev = new Int32Array(keyCount).fill(ABSENT);
    this.next = new Int32Array(keyCount).fill(ABSENT);
    this.head = new Int32Array(shards).fill(NONE);
    this.tail = new Int32Array(shards).fill(NONE);
    this.size = new Int32Array(shards);
  }

  has(key: number): boolean {
    return this.prev[key] !== ABSENT;
  }

  /** A get: true on a hit, which also makes the key most recently used. */
  touch(key: number, shard: number): boolean {
    if (this.prev[key] === ABSENT) return false;
    if (this.head[shard] !== key) {
      this.unlink(key, shard);
      this.linkFront(key, shard);
    }
    return true;
  }

  /** A set: the key becomes most recently used; the least recently used key goes if the shard is full. */
  insert(key: number, shard: number): void {
    if (this.touch(key, shard)) return;
    if (this.capacity <= 0) return;
    this.linkFront(key, shard);
    if (++this.size[shard]! > this.capacity) {
      const victim = this.tail[shard]!;
      this.unlink(victim, shard);
      this.prev[victim] = ABSENT;
      this.next[victim] = ABSENT;
      this.size[shard]!--;
      this.evictions++;
    }
  }

  private linkFront(key: number, shard: number): void {
    const first = this.head[shard]!;
    this.prev[key] = NONE;
    this.next[key] = first;
    if (first !== NONE) this.prev[first] = key;
    else this.tail[shard] = key;
    this.head[shard] = key;
  }

  private unlink(key: number, shard: number): void {
    const p = this.prev[key]!;
    const n = this.next[key]!;
    if (p !== NONE) this.next[p] = n;
    else this.head[shard] = n;
    if (n !== NONE) this.prev[n] = p;
    else this.tail[shard] = p;
  }
}
