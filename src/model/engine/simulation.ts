import { EventHeap } from './event-heap.ts';

/** A component that receives events. `code` says what happened; `arg` is usually a record id. */
export interface EventHandler {
  handle(code: number, arg: number): void;
}

export type RunOutcome = 'stopped' | 'idle' | 'budget';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * The discrete-event loop: integer virtual time in µs, one heap, handlers registered once at
 * build time and addressed by number. Virtual time never goes back: scheduling into the past, or at
 * a non-integer time, throws (a model bug, not a run-time condition).
 */
export class Simulation {
  nowUs = 0;
  eventsProcessed = 0;
  /** FNV-1a over (time, handler, code) of every processed event: equal hashes ⇒ identical runs. */
  traceHash = FNV_OFFSET;
  private readonly heap = new EventHeap();
  private readonly handlers: EventHandler[] = [];
  private stopped = false;

  /** Returns the handler's id for `at`/`after`. */
  register(handler: EventHandler): number {
    this.handlers.push(handler);
    return this.handlers.length - 1;
  }

  at(timeUs: number, handler: number, code: number, arg: number): void {
    if (!(timeUs >= this.nowUs) || !Number.isInteger(timeUs)) {
      throw new Error(`model bug: event at t=${timeUs}µs scheduled at t=${this.nowUs}µs (time must be an integer and never go back)`);
    }
    this.heap.push(timeUs, handler, code, arg);
  }

  after(delayUs: number, handler: number, code: number, arg: number): void {
    this.at(this.nowUs + delayUs, handler, code, arg);
  }

  get pendingEvents(): number {
    return this.heap.size;
  }

  get pendingHighWater(): number {
    return this.heap.highWater;
  }

  /** Time of the next event, Infinity when none. */
  nextEventUs(): number {
    return this.heap.peekTime();
  }

  /** Ends `run` after the current event. */
  stop(): void {
    this.stopped = true;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * Processes events due at or before `untilUs`, at most `maxEvents` of them (so a caller can yield
   * to the event loop between slices). 'idle': nothing left before `untilUs`; 'budget': the slice
   * is used up; 'stopped': `stop()` was called.
   */
  run(untilUs: number, maxEvents: number): RunOutcome {
    const heap = this.heap;
    const handlers = this.handlers;
    let hash = this.traceHash;
    let processed = 0;
    try {
      while (!this.stopped) {
        if (processed >= maxEvents) return 'budget';
        if (heap.size === 0 || heap.peekTime() > untilUs) return 'idle';
        heap.pop();
        const t = heap.topTime;
        if (t < this.nowUs) throw new Error(`model bug: virtual time went back from ${this.nowUs}µs to ${t}µs`);
        this.nowUs = t;
        const handler = heap.topHandler;
        const code = heap.topCode;
        hash = Math.imul(hash ^ (t % 4294967296), FNV_PRIME);
        hash = Math.imul(hash ^ Math.floor(t / 4294967296), FNV_PRIME);
        hash = Math.imul(hash ^ handler, FNV_PRIME);
        hash = Math.imul(hash ^ code, FNV_PRIME);
        processed++;
        handlers[handler]!.handle(code, heap.topArg);
      }
      return 'stopped';
    } finally {
      this.traceHash = hash >>> 0;
      this.eventsProcessed += processed;
    }
  }
}
