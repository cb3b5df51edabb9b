import type { EventHandler, Simulation } from './simulation.ts';

/** Who owns the entries of a deadline queue: says whether an entry still matters, and acts on it. */
export interface DeadlineOwner {
  /** False when the record moved on since the entry was pushed (its generation changed). */
  isLive(id: number, gen: number): boolean;
  expire(id: number): void;
}

/**
 * Deadlines that all have the same duration (one client group's timeout, one host's TIME_WAIT
 * hold) expire in the order they were pushed, so a FIFO ring replaces a timer per entry: the main
 * heap holds at most one event per queue, for its earliest live entry. Cancelling is lazy — the
 * record's generation counter changes, and stale entries are skipped when they reach the head.
 */
export class DeadlineQueue implements EventHandler {
  private deadline: Float64Array;
  private id: Int32Array;
  private gen: Int32Array;
  private head = 0;
  private count = 0;
  private armed = false;
  private readonly handlerId: number;

  constructor(
    private readonly sim: Simulation,
    /** Every entry expires this long after it is pushed. */
    readonly durationUs: number,
    private readonly owner: DeadlineOwner,
    /** A power of two. */
    initialCapacity = 64,
  ) {
    this.deadline = new Float64Array(initialCapacity);
    this.id = new Int32Array(initialCapacity);
    this.gen = new Int32Array(initialCapacity);
    this.handlerId = sim.register(this);
  }

  /** Entries held, stale ones included. */
  get size(): number {
    return this.count;
  }

  push(id: number, gen: number): void {
    if (this.count === this.id.length) this.grow();
    const at = (this.head + this.count) & (this.id.length - 1);
    const deadlineUs = this.sim.nowUs + this.durationUs;
    this.deadline[at] = deadlineUs;
    this.id[at] = id;
    this.gen[at] = gen;
    this.count++;
    if (!this.armed) {
      this.armed = true;
      this.sim.at(deadlineUs, this.handlerId, 0, 0);
    }
  }

  handle(): void {
    // `armed` stays true while expiring: an owner may push new entries (a failed call's sibling
    // starts waiting), and those must not arm an event later than an older entry still queued.
    const now = this.sim.nowUs;
    while (this.count > 0 && this.deadline[this.head]! <= now) {
      const id = this.id[this.head]!;
      const gen = this.gen[this.head]!;
      this.head = (this.head + 1) & (this.id.length - 1);
      this.count--;
      if (this.owner.isLive(id, gen)) this.owner.expire(id);
    }
    // Skip entries already settled, so the next heap event is for one that may still fire.
    while (this.count > 0 && !this.owner.isLive(this.id[this.head]!, this.gen[this.head]!)) {
      this.head = (this.head + 1) & (this.id.length - 1);
      this.count--;
    }
    this.armed = this.count > 0;
    if (this.armed) this.sim.at(this.deadline[this.head]!, this.handlerId, 0, 0);
  }

  private grow(): void {
    const n = this.id.length * 2;
    const mask = this.id.length - 1;
    const deadline = new Float64Array(n);
    const id = new Int32Array(n);
    const gen = new Int32Array(n);
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) & mask;
      deadline[i] = this.deadline[from]!;
      id[i] = this.id[from]!;
      gen[i] = this.gen[from]!;
    }
    this.deadline = deadline;
    this.id = id;
    this.gen = gen;
    this.head = 0;
  }
}
