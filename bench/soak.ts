/**
 * Soak benchmark (not a test): one long `stampede run` against a tiny HTTP responder on 127.0.0.1,
 * with the stampede process's RSS and the size of its latency.hlog sampled every minute. Memory of
 * a run must not grow with its duration (intervals go to disk), so RSS after the warm-up minute
 * should stay flat within 10%.
 *
 *   node --import tsx bench/soak.ts [--minutes 30] [--rate 2000]     (npm run bench:soak)
 *
 * Sub-mode (started by the script itself): bench/soak.ts responder
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SAMPLE_MS = 60_000;
const FLAT_WITHIN = 0.1;

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!(value > 0)) throw new Error(`--${name} expects a positive number`);
  return value;
}

function responder(): void {
  const server = createServer((_req, res) => res.end('ok'));
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

function started(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      const m = /listening (\d+)/.exec(data.toString());
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`responder exited (${code})`)));
  });
}

/** Resident set of a process, MB (Linux /proc). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function soak(): Promise<void> {
  const minutes = option('minutes', 30);
  const rate = option('rate', 2000);
  const scratch = mkdtempSync(join(tmpdir(), 'stampede-soak-'));
  const target = spawn(process.execPath, ['--import', 'tsx', SELF, 'responder'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let run: ChildProcess | undefined;
  try {
    const port = await started(target);
    const profile = join(scratch, 'soak.yaml');
    writeFileSync(
      profile,
      [
        'name: soak',
        'arrivals: constant',
        'phases:',
        `  - { type: steady, rate: ${rate}, duration: ${minutes}m }`,
        'http: { connections: 8 }',
        'topology: { entry: api, services: { api: { workers: 1 } } }',
        '',
      ].join('\n'),
    );
    const out = join(scratch, 'run');
    run = spawn(process.execPath, ['scripts/stampede-dev.js', 'run', profile, '--target', `http://127.0.0.1:${port}`, '--out', out, '--quiet'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => run!.once('exit', resolve));
    const samples: { minute: number; rssMb: number; hlogBytes: number }[] = [];
    const hlog = join(out, 'latency.hlog');
    for (let minute = 1; minute <= minutes; minute++) {
      const done = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), SAMPLE_MS))]);
      if (done) break;
      const sample = { minute, rssMb: rssMb(run.pid!), hlogBytes: existsSync(hlog) ? statSync(hlog).size : 0 };
      samples.push(sample);
      process.stdout.write(`minute ${minute}: RSS ${sample.rssMb.toFixed(1)} MB, latency.hlog ${sample.hlogBytes} bytes\n`);
    }
    const code = await exited;
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as { requests: { sent: number; ok: number }; intervals: { count: number } };
    const { verdict } = JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8')) as { verdict: string };
    const afterWarmup = samples.slice(1).map((s) => s.rssMb);
    const low = Math.min(...afterWarmup);
    const high = Math.max(...afterWarmup);
    const last = samples.at(-1);
    const hlogPerHour = last ? (last.hlogBytes / last.minute) * 60 : 0;
    const flat = afterWarmup.length > 0 && (high - low) / low <= FLAT_WITHIN;
    process.stdout.write(
      `${JSON.stringify({ minutes, rate, exit: code, verdict, sent: result.requests.sent, ok: result.requests.ok, intervals: result.intervals.count, rssAfterWarmupMb: { low: Number(low.toFixed(1)), high: Number(high.toFixed(1)) }, spread: Number(((high - low) / low).toFixed(3)), flatWithin10pct: flat, hlogBytesPerHour: Math.round(hlogPerHour), intervalsJsonlBytes: statSync(join(out, 'intervals.jsonl')).size })}\n`,
    );
  } finally {
    if (run && run.exitCode === null) run.kill('SIGTERM');
    target.kill('SIGTERM');
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'responder') responder();
else await soak();
