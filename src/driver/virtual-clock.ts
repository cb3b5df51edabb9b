import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Clock, ClockTimer } from './clock.ts';

interface Wake {
  atMs: number;
  /** Insertion order: wake-ups due at the same time run first-come first-served. */
  order: number;
  periodMs: number;
  run: () => void;
}

/**
 * Virtual time for the open-loop pacer: timers fire in time order with the clock jumped to their
 * due time, and nothing depends on how fast or busy the machine is. Timer rounding follows Node's
 * (a timeout is at least 1 ms), so the pacer's own granularity shows as it would for real.
 */
export class VirtualClock implements Clock {
  readonly originEpochMs = 1_700_000_000_000;
  private now = 0;
  private order = 0;
  private readonly queue: Wake[] = [];

  nowMs(): number {
    return this.now;
  }

  after(delayMs: number, wake: () => void): ClockTimer {
    return this.push(delayMs < 0 ? this.now : this.now + Math.max(1, delayMs), 0, wake);
  }

  every(periodMs: number, tick: () => void): ClockTimer {
    return this.push(this.now + periodMs, periodMs, tick);
  }

  /** The thread is busy for `ms` (a stalled event loop): time passes and no timer runs meanwhile. */
  stall(ms: number): void {
    this.now += ms;
  }

  /**
   * Fires wake-ups in time order until `done` settles, letting promise continuations run between
   * them. Throws when nothing is left to fire but `done` is still pending (the run would hang).
   */
  async runUntil<T>(done: Promise<T>, maxWakes = 1_000_000): Promise<T> {
    let settled = false;
    done.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let wakes = 0; wakes < maxWakes; wakes++) {
      await yieldToEventLoop();
      if (settled) return done;
      const next = this.queue.shift();
      if (next === undefined) throw new Error(`virtual clock: nothing scheduled at ${this.now} ms and the run has not finished`);
      this.now = Math.max(this.now, next.atMs);
      if (next.periodMs > 0) {
        // A periodic wake-up goes back in the queue as the same entry, so cancelling it still finds it.
        next.atMs += next.periodMs;
        next.order = this.order++;
        this.insert(next);
      }
      next.run();
    }
    throw new Error(`virtual clock: still running after ${maxWakes} wake-ups`);
  }

  private push(atMs: number, periodMs: number, run: () => void): ClockTimer {
    const wake: Wake = { atMs, order: this.order++, periodMs, run };
    this.insert(wake);
    return {
      cancel: () => {
        const i = this.queue.indexOf(wake);
        if (i >= 0) this.queue.splice(i, 1);
      },
    };
  }

  /** Keeps the queue sorted by due time, then insertion order. */
  private insert(wake: Wake): void {
    let i = this.queue.length;
    while (i > 0 && isAfter(this.queue[i - 1]!, wake)) i--;
    this.queue.splice(i, 0, wake);
  }
}

function isAfter(a: Wake, b: Wake): boolean {
  return a.atMs > b.atMs || (a.atMs === b.atMs && a.order > b.order);
}
