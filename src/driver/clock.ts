import { performance } from 'node:perf_hooks';

/** A pending wake-up; cancelling one that already ran is a no-op. */
export interface ClockTimer {
  cancel(): void;
}

/**
 * Time as the open-loop pacer sees it: a monotonic reading and wake-ups. Injected so the pacer's
 * rules (drops at the cap, drain, lateness) can be tested in virtual time, exactly; the real one
 * is performance.now() and Node's timers.
 */
export interface Clock {
  /** Monotonic ms (fractional), same origin as `originEpochMs`. */
  nowMs(): number;
  /** Epoch ms at nowMs() = 0: converts a start time shared across threads (epoch ms) to this clock. */
  readonly originEpochMs: number;
  /**
   * Runs `wake` once after `delayMs` whole ms; like setTimeout, never earlier and at least 1 ms
   * later. A negative delay means "as soon as pending I/O has been handled" (setImmediate).
   */
  after(delayMs: number, wake: () => void): ClockTimer;
  /** Runs `tick` every `periodMs` until cancelled. */
  every(periodMs: number, tick: () => void): ClockTimer;
}

/**
 * performance.now() and Node's timers. A wake-up costs one small handle, as setTimeout does:
 * the pacer asks for one per batch of due requests, never one per request.
 */
export const realClock: Clock = {
  nowMs: () => performance.now(),
  originEpochMs: performance.timeOrigin,
  after(delayMs, wake) {
    if (delayMs < 0) {
      const immediate = setImmediate(wake);
      return { cancel: () => clearImmediate(immediate) };
    }
    const timeout = setTimeout(wake, delayMs);
    return { cancel: () => clearTimeout(timeout) };
  },
  every(periodMs, tick) {
    const interval = setInterval(tick, periodMs);
    return { cancel: () => clearInterval(interval) };
  },
};
