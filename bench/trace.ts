/**
 * Trace benchmark: how fast the installed command reads a production trace, beside the floor of
 * merely decompressing and counting its lines, in the same run.
 *
 *   npm run bench:trace [-- --lines 10000000]
 *
 * A trace of --lines requests (default 10⁷) in the public cache-trace format is generated from
 * known parameters (Zipf 1.0 over 10⁶ keys, five operations, two TTLs, 20 clients) and
 * zstd-compressed, as the public traces are. Then, alternated, REPS times each:
 * - floor: `zstd -d -c trace.zst | wc -l` (native decompression, no parsing);
 * - `stampede trace stats trace.zst` and `stampede trace fit trace.zst` through bin/stampede.js.
 * Each prints its median wall time, lines/s and peak RSS (GNU time); the command's ratio to the floor.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSyntheticTrace, zstdCompress } from '../test/helpers/synthetic-trace.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMPEDE = join(ROOT, 'bin', 'stampede.js');
const REPS = 3;
const argLines = process.argv.indexOf('--lines');
const LINES = argLines > 0 ? Number(process.argv[argLines + 1]) : 10_000_000;
const work = join(ROOT, 'reports', 'bench-trace');

interface Trial {
  wallMs: number;
  maxRssMb: number;
}

/** Wall time and peak RSS of one command, through GNU time (its %M: the largest resident set, KiB). */
function timed(shell: string): Trial {
  const start = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '%M', 'sh', '-c', shell], { cwd: ROOT, encoding: 'utf8', timeout: 30 * 60_000 });
  const wallMs = performance.now() - start;
  if (run.status !== 0) throw new Error(`${shell}: exit ${run.status}: ${run.stderr}`);
  const rssKb = Number(run.stderr.trim().split('\n').at(-1));
  return { wallMs, maxRssMb: rssKb / 1024 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const plain = join(work, 'trace.csv');
console.log(`generating ${LINES.toLocaleString('en-US')} lines …`);
writeSyntheticTrace(plain, {
  seed: 1,
  requests: LINES,
  ratePerS: 20_000,
  keys: 1_000_000,
  zipfAlpha: 1.0,
  oneHitShare: 0.05,
  operations: { get: 0.8, set: 0.12, add: 0.03, delete: 0.03, incr: 0.02 },
  valueSizeMean: 300,
  ttls: [
    { ttlS: 300, weight: 3 },
    { ttlS: 86_400, weight: 1 },
  ],
  clients: Array.from({ length: 20 }, (_, i) => ({ id: `c${i}`, weight: 20 - i })),
});
const trace = zstdCompress(plain);
rmSync(plain);
console.log(`trace: ${(statSync(trace).size / 1024 ** 2).toFixed(0)} MiB zstd`);
execFileSync('zstd', ['--version'], { stdio: 'inherit' });

const COMMANDS: Record<string, string> = {
  'zstd -d -c | wc -l (floor)': `zstd -d -c ${trace} | wc -l > /dev/null`,
  'stampede trace stats': `node ${STAMPEDE} trace stats ${trace} --out ${join(work, 'stats.json')} > /dev/null`,
  'stampede trace fit': `node ${STAMPEDE} trace fit ${trace} --out ${join(work, 'fit.yaml')} > /dev/null 2>&1`,
};
const trials = new Map<string, Trial[]>(Object.keys(COMMANDS).map((name) => [name, []]));
for (let rep = 0; rep < REPS; rep++) for (const [name, shell] of Object.entries(COMMANDS)) trials.get(name)!.push(timed(shell));

const floorMs = median(trials.get('zstd -d -c | wc -l (floor)')!.map((t) => t.wallMs));
console.log(`\n| command | median wall | lines/s | × floor's time | peak RSS |\n|---|---:|---:|---:|---:|`);
for (const [name, ts] of trials) {
  const ms = median(ts.map((t) => t.wallMs));
  const rss = Math.max(...ts.map((t) => t.maxRssMb));
  console.log(`| ${name} | ${(ms / 1000).toFixed(2)} s | ${Math.round(LINES / (ms / 1000)).toLocaleString('en-US')} | ${(ms / floorMs).toFixed(1)}× | ${rss.toFixed(0)} MB |`);
}
rmSync(work, { recursive: true, force: true });
