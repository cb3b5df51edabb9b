import { defineConfig } from 'vitest/config';

/*
 * Three projects.
 * - `unit` (`npm run test:unit`, well under a minute): nothing that starts a process, a browser or a
 *   socket, and no whole-incident model run. The pacer's timing rules are here, in virtual time.
 * - `integration`: the real CLI as a child process (tsx compiles on start: several seconds each on a
 *   busy 2-core machine), the browser, the bundled profiles and examples end to end, and the model
 *   incident reproductions and other long model runs (each 5–30 s of CPU).
 * - `drivers` (test/drivers/**, and test/faults/**: servers that misbehave on purpose): real traffic
 *   to real sockets on wall-clock time, so it runs after the others have finished (groupOrder) and
 *   one file at a time: a CPU-heavy model test on the other core would otherwise delay its timers
 *   and sockets.
 * `npm test` runs all three.
 */
const INTEGRATION = [
  'test/cli/**/*.test.ts',
  'test/pipeline/**/*.test.ts',
  'test/report/cli.test.ts',
  'test/report/browser.test.ts',
  'test/report/examples.test.ts',
  // Its history and compare commands are checked through the CLI.
  'test/analysis/compare.test.ts',
  'test/model/incidents/**/*.test.ts',
  // Every bundled profile, run on the model.
  'test/model/profiles.test.ts',
  // Long model runs checked against queueing theory and the HotOS figures (10–20 s of CPU each).
  'test/model/mmc.test.ts',
  'test/model/hotos.test.ts',
  // Shipped incident profiles with a new feature switched on, with and without it.
  'test/model/optional-calls.test.ts',
  'test/model/divergence.test.ts',
  // Grid points on worker threads, each loading the model through tsx.
  'test/sweep/**/*.test.ts',
  // npm pack, install into a temporary folder, run the installed CLI.
  'test/package/**/*.test.ts',
  // Every command the README shows, run through the CLI.
  'test/readme/**/*.test.ts',
  // tsc on exported k6 scripts against @types/k6.
  'test/interop/k6/typecheck.test.ts',
  // Hostile inputs (values, files, scripts, hosts, never-ending states, full disks), each through the real CLI.
  'test/hostile/**/*.test.ts',
];

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/drivers/**', 'test/faults/**', ...INTEGRATION], sequence: { groupOrder: 0 }, testTimeout: 30_000 },
      },
      {
        extends: true,
        test: { name: 'integration', include: INTEGRATION, sequence: { groupOrder: 0 }, testTimeout: 60_000 },
      },
      {
        extends: true,
        test: {
          name: 'drivers',
          include: ['test/drivers/**/*.test.ts', 'test/faults/**/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
