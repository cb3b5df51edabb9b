/**
 * Merge benchmark: three 10-minute segments of one model run (1 s intervals, two request kinds), then
 * `stampede merge`'s work on them — reading each folder's result, intervals.jsonl and latency.hlog,
 * adding every histogram, judging and writing the merged folder with its reports — timed alone.
 * The segments' own runs are not part of the figure.
 *
 *   node --import tsx bench/merge.ts [--minutes 10] [--rate 3000]     (npm run bench:merge)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { mergeRuns } from '../src/merge/index.ts';
import { runProfile } from '../src/pipeline/run.ts';
import { parseProfileText } from '../src/profile/load.ts';

const SEGMENTS = 3;

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const minutes = option('minutes', 10);
const rate = option('rate', 3000);
const profile = await parseProfileText(
  [
    'name: merge-bench',
    'seed: 1',
    'warmup: 10s',
    'phases:',
    `  - { type: steady, rate: ${rate}, duration: ${minutes}m }`,
    'mix:',
    '  - { kind: get, weight: 9 }',
    '  - { kind: set, weight: 1 }',
    'slo: { latency: [{ percentile: 99, max: 50ms }] }',
    'topology: { entry: api, services: { api: { workers: 8, serviceTime: { type: exponential, mean: 1ms } } } }',
    '',
  ].join('\n'),
  'merge-bench.yaml',
);
const scratch = mkdtempSync(join(tmpdir(), 'stampede-bench-merge-'));
try {
  const dirs: string[] = [];
  for (let index = 0; index < SEGMENTS; index++) {
    const outDir = join(scratch, `segment-${index}`);
    process.stdout.write(`segment ${index}/${SEGMENTS}: running ${minutes} min of the model…\n`);
    await runProfile(profile, { outDir, reports: false, segment: { index, count: SEGMENTS } });
    dirs.push(outDir);
  }
  const hlogBytes = dirs.reduce((sum, dir) => sum + statSync(join(dir, 'latency.hlog')).size, 0);
  const started = performance.now();
  const { result, analysis } = await mergeRuns(dirs, { outDir: join(scratch, 'merged') });
  const mergeMs = performance.now() - started;
  process.stdout.write(
    `${JSON.stringify({ segments: SEGMENTS, minutes, rate, intervals: result.intervals.count, requests: result.requests.sent, segmentHlogBytes: hlogBytes, verdict: analysis.verdict, mergeMs: Math.round(mergeMs) })}\n`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
