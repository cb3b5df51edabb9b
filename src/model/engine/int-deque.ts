/**
 * A growable ring buffer of int32 used as a FIFO or LIFO queue of record ids. Never shrinks, so a
 * queue that once held a 20k-key fan-out keeps its capacity and allocates nothing afterwards.
 */
export class IntDeque {
  private items: Int32Array;
  private head = 0;
  size = 0;

  /** `initialCapacity` must be a power of two. */
  constructor(initialCapacity = 16) {
    this.items = new Int32Array(initialCapacity);
  }

  pushBack(value: number): void {
    if (this.size === this.items.length) this.grow();
    this.items[(this.head + this.size) & (this.items.length - 1)] = value;
    this.size++;
  }

  popFront(): number {
    if (this.size === 0) throw new Error('model bug: popFront on an empty queue');
    const value = this.items[this.head]!;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.size--;
    return value;
  }

  popBack(): number {
    if (this.size === 0) throw new Error('model bug: popBack on an empty queue');
    this.size--;
    return this.items[(this.head + this.size) & (this.items.length - 1)]!;
  }

  /** The i-th item from the front. */
  at(i: number): number {
    return this.items[(this.head + i) & (this.items.length - 1)]!;
  }

  private grow(): void {
    const old = this.items;
    const next = new Int32Array(old.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = old[(this.head + i) & (old.length - 1)]!;
    this.items = next;
    this.head = 0;
  }
}
