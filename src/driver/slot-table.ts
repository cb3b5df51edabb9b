import type { ScheduledRequest } from '../schedule/types.ts';

/**
 * The requests in flight, one slot each, in typed arrays allocated once for the in-flight cap: a
 * transport knows a request by its slot number, and taking or freeing a slot allocates nothing.
 * Free slots are a stack, so the slot freed last (its arrays still in cache) is taken next.
 */
export class SlotTable {
  /** Most requests in flight at once (at least 1). */
  readonly capacity: number;
  /** Per slot: when its request was due, µs from the run's start. */
  readonly intendedAtUs: Float64Array;
  /** Per slot: when its request reached a connected socket, or −1 while it has not. */
  readonly sentAtUs: Float64Array;
  readonly client: Int32Array;
  readonly kind: Int32Array;
  private readonly free: Int32Array;
  private freeTop: number;

  constructor(capacity: number) {
    const cap = Math.max(1, capacity);
    this.capacity = cap;
    this.intendedAtUs = new Float64Array(cap);
    this.sentAtUs = new Float64Array(cap);
    this.client = new Int32Array(cap);
    this.kind = new Int32Array(cap);
    this.free = new Int32Array(cap);
    for (let i = 0; i < cap; i++) this.free[i] = cap - 1 - i;
    this.freeTop = cap;
  }

  get inFlight(): number {
    return this.capacity - this.freeTop;
  }

  /** Nothing in flight. */
  get idle(): boolean {
    return this.freeTop === this.capacity;
  }

  /** A slot for `request`, not yet sent; −1 when every slot is taken (the request is dropped). */
  take(request: ScheduledRequest): number {
    if (this.freeTop === 0) return -1;
    const slot = this.free[--this.freeTop]!;
    this.intendedAtUs[slot] = request.intendedAtUs;
    this.sentAtUs[slot] = -1;
    this.client[slot] = request.client;
    this.kind[slot] = request.kind;
    return slot;
  }

  /** Slot's request is finished; the slot is free for the next due request. */
  release(slot: number): void {
    this.free[this.freeTop++] = slot;
  }

  /** Since when slot's request has waited for its answer: its write, or its intended time while it waits for a connection. */
  waitingSinceUs(slot: number): number {
    const sent = this.sentAtUs[slot]!;
    return sent >= 0 ? sent : this.intendedAtUs[slot]!;
  }
}
