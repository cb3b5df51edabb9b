import { defineConfig } from 'vitest/config';

/*
 * Two projects. `unit` is everything but the real-target tests and runs files in parallel. `drivers`
 * (test/drivers/**) sends real traffic on wall-clock time and asserts timing (the stalling target's
 * p99), so it runs after `unit` has finished (groupOrder) and one file at a time: a CPU-heavy model
 * test on the other core would otherwise delay its timers and sockets.
 */
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        // CLI tests start real processes (tsx compiles on start): on a busy 2-core machine one takes several seconds.
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/drivers/**'], sequence: { groupOrder: 0 }, testTimeout: 30_000 },
      },
      {
        extends: true,
        test: { name: 'drivers', include: ['test/drivers/**/*.test.ts'], fileParallelism: false, sequence: { groupOrder: 1 }, testTimeout: 60_000, hookTimeout: 30_000 },
      },
    ],
  },
});
