import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeRuns } from '../../src/merge/index.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { makeProfile } from '../helpers/profile.ts';

/** Debian's libhdrhistogram-java (scripts/test-deps.sh installs it): HdrHistogram's own reader of interval logs. */
const HDR_JAR = '/usr/share/java/hdrhistogram.jar';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-hlog-java-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * HistogramLogProcessor's accumulated distribution of one tag's lines (default: the untagged ones), values
 * in the log's own unit: its total count and its largest value.
 */
function javaTotals(log: string, tag?: string): { count: number; max: number } {
  const args = ['-cp', HDR_JAR, 'org.HdrHistogram.HistogramLogProcessor', '-i', log, '-csv', '-outputValueUnitRatio', '1', ...(tag ? ['-tag', tag] : [])];
  const java = spawnSync('java', args, { encoding: 'utf8', timeout: 60_000 });
  expect(java.status, java.stderr).toBe(0);
  const rows = java.stdout
    .split('\n')
    .filter((line) => /^\d/.test(line))
    .map((line) => line.split(',').map(Number));
  const last = rows.at(-1)!;
  return { count: last[2]!, max: last[0]! };
}

/** Counts exactly; the largest value to the histogram's precision (Java reports its bucket's highest equivalent value). */
function expectAgrees(dir: string, result: RunResult): void {
  const log = join(dir, 'latency.hlog');
  const agrees = (java: { count: number; max: number }, summary: { count: number; max: number }) => {
    expect(java.count).toBe(summary.count);
    expect(Math.abs(java.max - summary.max)).toBeLessThanOrEqual(summary.max / 1000);
  };
  agrees(javaTotals(log), result.latencyUs);
  for (const [kind, slice] of Object.entries(result.byKind)) agrees(javaTotals(log, `kind:${kind}`), slice.latencyUs);
  expect(javaTotals(log, 'warmup').count).toBe(result.requests.warmup);
}

describe('latency.hlog read whole by HdrHistogram’s Java HistogramLogProcessor', () => {
  const profile = makeProfile({
    name: 'hlog-java',
    warmup: '1s',
    phases: [{ type: 'steady', rate: 2000, duration: '3s' }],
    mix: [
      { kind: 'get', weight: 4 },
      { kind: 'set', weight: 1 },
    ],
  } as never);

  it('a run’s log: untagged totals are result.json’s, each kind tag its slice, the warm-up apart', async () => {
    const { result, dir } = await runProfile(profile, { outDir: join(scratch, 'run'), reports: false });
    expectAgrees(dir, result);
  });

  it('a merged run’s log is one valid log whose totals are the merged result’s', async () => {
    const dirs = [0, 1, 2].map((i) => join(scratch, `segment-${i}`));
    for (const [index, outDir] of dirs.entries()) await runProfile(profile, { outDir, reports: false, segment: { index, count: 3 } });
    const { result, dir } = await mergeRuns(dirs, { outDir: join(scratch, 'merged'), reports: false });
    expectAgrees(dir, result);
  });
});
