import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until the wall clock reaches `epochMs` (a start shared by every segment of a run, on every
 * host: `--start-at`), or until `signal` aborts. Resolves to that instant on the monotonic clock's
 * epoch scale (performance.timeOrigin + performance.now()), the scale the open-loop pacer's start is
 * given in; an instant already past resolves at once, so the run's intended times keep the shared origin.
 */
export async function untilEpoch(epochMs: number, signal: AbortSignal): Promise<number> {
  // Bounded timers: a wait longer than Node's 2³¹ − 1 ms timer limit would fire at once, and the
  // wall clock may be stepped (NTP) while it lasts, so it is re-read after each.
  for (let waitMs = epochMs - Date.now(); waitMs > 0 && !signal.aborted; waitMs = epochMs - Date.now()) {
    await sleep(Math.min(waitMs, LONGEST_TIMER_MS), undefined, { signal }).catch(() => undefined);
  }
  return epochMs - Date.now() + performance.timeOrigin + performance.now();
}

const LONGEST_TIMER_MS = 60_000;
