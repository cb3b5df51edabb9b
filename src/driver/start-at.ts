import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until the wall clock reaches `epochMs` (a start shared by every segment of a run, on every
 * host: `--start-at`), or until `signal` aborts. Resolves to that instant on the monotonic clock's
 * epoch scale (performance.timeOrigin + performance.now()), the scale the open-loop pacer's start is
 * given in; an instant already past resolves at once, so the run's intended times keep the shared origin.
 */
export async function untilEpoch(epochMs: number, signal: AbortSignal): Promise<number> {
  const waitMs = epochMs - Date.now();
  if (waitMs > 0) await sleep(waitMs, undefined, { signal }).catch(() => undefined);
  return epochMs - Date.now() + performance.timeOrigin + performance.now();
}
