/** A Float64Array that doubles as it fills: per-key and per-second counts without a JS array of boxed numbers. */
export class GrowableArray {
  private data: Float64Array;
  length = 0;

  constructor(initial = 1024) {
    this.data = new Float64Array(initial);
  }

  get(i: number): number {
    return i < this.length ? this.data[i]! : 0;
  }

  set(i: number, value: number): void {
    this.reserve(i + 1);
    this.data[i] = value;
  }

  add(i: number, delta: number): void {
    this.reserve(i + 1);
    this.data[i]! += delta;
  }

  /** The filled part, shared (not copied). */
  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }

  private reserve(length: number): void {
    if (length > this.data.length) {
      const grown = new Float64Array(Math.max(length, this.data.length * 2));
      grown.set(this.data);
      this.data = grown;
    }
    if (length > this.length) this.length = length;
  }
}
