/**
 * Start-up benchmark: how long the compiled CLI takes to answer, beside autocannon and bare node in
 * the same run. Each command runs REPS times, interleaved so machine load hits all alike; medians.
 *
 *   npm run build && node --import tsx bench/startup.ts        (npm run bench:startup)
 *
 * - `stampede --version` and `stampede validate profiles/steady-peak.yaml`: spawn to exit.
 * - first request: spawn of `stampede run <1 s profile> --target http://127.0.0.1:P` to the first
 *   request a tiny server in this process sees (the run itself is bounded to ~1 s at 200 rps).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPS = 9;
const STAMPEDE = join(ROOT, 'bin', 'stampede.js');
const AUTOCANNON = join(ROOT, 'node_modules', '.bin', 'autocannon');
const RUN_SETS = ['warmup=0', 'phases=[{type: steady, rate: 200, duration: 1s}]'].flatMap((s) => ['--set', s]);

/** Milliseconds from spawn until `until` resolves (default: the process exits). Every child is capped at 30 s. */
function timed(command: string, args: string[], until?: Promise<void>): Promise<number> {
  const start = performance.now();
  const child = spawn(command, args, { cwd: ROOT, stdio: 'ignore' });
  setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
  const exited = new Promise<void>((resolve, reject) => {
    child.once('exit', () => resolve());
    child.once('error', reject);
  });
  return (until ?? exited).then(() => performance.now() - start);
}

async function firstRequestMs(): Promise<number> {
  let first: () => void = () => undefined;
  const seen = new Promise<void>((resolve) => (first = resolve));
  const server = createServer((_, res) => {
    first();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const out = join(ROOT, 'reports', 'bench-startup');
  const args = [STAMPEDE, 'run', 'profiles/steady-peak.yaml', ...RUN_SETS, '--target', `http://127.0.0.1:${port}`, '--out', out, '--quiet'];
  const ms = await timed(process.execPath, args, seen);
  // Let the bounded run finish before the next trial starts.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const TRIALS: Record<string, () => Promise<number>> = {
  'node -e 0': () => timed(process.execPath, ['-e', '0']),
  'autocannon --version': () => timed(AUTOCANNON, ['--version']),
  'stampede --version': () => timed(process.execPath, [STAMPEDE, '--version']),
  'stampede validate profiles/steady-peak.yaml': () => timed(process.execPath, [STAMPEDE, 'validate', 'profiles/steady-peak.yaml']),
  'stampede run --target http://… (to first request)': firstRequestMs,
};

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('no dist/: run npm run build first');
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(TRIALS).map((k) => [k, []]));
  for (let rep = 0; rep < REPS; rep += 1) {
    for (const [name, trial] of Object.entries(TRIALS)) samples[name]!.push(await trial());
  }
  const base = median(samples['autocannon --version']!);
  const node = median(samples['node -e 0']!);
  console.log(`${REPS} repetitions, medians (node ${process.version})\n`);
  console.log('| command | median ms | × autocannon --version | × node -e 0 |\n|---|---:|---:|---:|');
  for (const [name, xs] of Object.entries(samples)) {
    const m = median(xs);
    console.log(`| \`${name}\` | ${m.toFixed(0)} | ${(m / base).toFixed(2)} | ${(m / node).toFixed(2)} |`);
  }
}

await main();
