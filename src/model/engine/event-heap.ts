/**
 * The pending-event set: a binary min-heap on parallel typed arrays, ordered by (time, insertion
 * sequence), so events at the same virtual time run in the order they were scheduled and a run is
 * reproducible. An event is four numbers — no object per event. Pushing and popping move a "hole"
 * instead of swapping, and the arrays double when full.
 */
export class EventHeap {
  private time: Float64Array;
  private seq: Float64Array;
  private handler: Int32Array;
  private code: Int32Array;
  private arg: Int32Array;
  private nextSeq = 0;
  /** Events pending. */
  size = 0;
  /** Most events ever pending at once. */
  highWater = 0;

  /** The event `pop()` removed (fields instead of a returned object, so popping allocates nothing). */
  topTime = 0;
  topHandler = 0;
  topCode = 0;
  topArg = 0;

  constructor(initialCapacity = 1024) {
    this.time = new Float64Array(initialCapacity);
    this.seq = new Float64Array(initialCapacity);
    this.handler = new Int32Array(initialCapacity);
    this.code = new Int32Array(initialCapacity);
    this.arg = new Int32Array(initialCapacity);
  }

  /** Time of the earliest pending event; Infinity when empty. */
  peekTime(): number {
    return this.size > 0 ? this.time[0]! : Number.POSITIVE_INFINITY;
  }

  push(timeUs: number, handler: number, code: number, arg: number): void {
    if (this.size === this.time.length) this.grow();
    const seq = this.nextSeq++;
    const time = this.time;
    const seqs = this.seq;
    let hole = this.size++;
    while (hole > 0) {
      const parent = (hole - 1) >> 1;
      const pt = time[parent]!;
      if (pt < timeUs || (pt === timeUs && seqs[parent]! < seq)) break;
      this.move(parent, hole);
      hole = parent;
    }
    time[hole] = timeUs;
    seqs[hole] = seq;
    this.handler[hole] = handler;
    this.code[hole] = code;
    this.arg[hole] = arg;
    if (this.size > this.highWater) this.highWater = this.size;
  }

  /** Removes the earliest event into `top*`; false when empty. */
  pop(): boolean {
    if (this.size === 0) return false;
    this.topTime = this.time[0]!;
    this.topHandler = this.handler[0]!;
    this.topCode = this.code[0]!;
    this.topArg = this.arg[0]!;
    const last = --this.size;
    if (last === 0) return true;
    const time = this.time;
    const seqs = this.seq;
    const lt = time[last]!;
    const ls = seqs[last]!;
    let hole = 0;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= last) break;
      const right = child + 1;
      if (right < last) {
        const ct = time[child]!;
        const rt = time[right]!;
        if (rt < ct || (rt === ct && seqs[right]! < seqs[child]!)) child = right;
      }
      const ct = time[child]!;
      if (lt < ct || (lt === ct && ls < seqs[child]!)) break;
      this.move(child, hole);
      hole = child;
    }
    time[hole] = lt;
    seqs[hole] = ls;
    this.handler[hole] = this.handler[last]!;
    this.code[hole] = this.code[last]!;
    this.arg[hole] = this.arg[last]!;
    return true;
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from]!;
    this.seq[to] = this.seq[from]!;
    this.handler[to] = this.handler[from]!;
    this.code[to] = this.code[from]!;
    this.arg[to] = this.arg[from]!;
  }

  private grow(): void {
    const n = this.time.length * 2;
    this.time = copyInto(new Float64Array(n), this.time);
    this.seq = copyInto(new Float64Array(n), this.seq);
    this.handler = copyInto(new Int32Array(n), this.handler);
    this.code = copyInto(new Int32Array(n), this.code);
    this.arg = copyInto(new Int32Array(n), this.arg);
  }
}

function copyInto<T extends Float64Array | Int32Array>(to: T, from: T): T {
  to.set(from);
  return to;
}
