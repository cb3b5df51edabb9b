import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { untilEpoch } from '../../src/driver/start-at.ts';

describe('waiting for a shared start (--start-at)', () => {
  it('a start already past resolves at once, to that instant on the monotonic scale', async () => {
    const epochMs = Date.now() - 1000;
    const at = await untilEpoch(epochMs, new AbortController().signal);
    expect(at).toBeLessThan(performance.timeOrigin + performance.now());
  });

  it('a wait longer than any one timer is cut short by a signal, not left to fire at once or spin', async () => {
    const abort = new AbortController();
    // 30 days ahead: beyond Node's 2³¹ − 1 ms timer limit, which would fire at once.
    const waiting = untilEpoch(Date.now() + 30 * 24 * 3600_000, abort.signal);
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    abort.abort();
    await waiting;
    expect(settled).toBe(true);
  });
});
