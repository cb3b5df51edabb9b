/**
 * memcached generator benchmark: stampede's highest sustained open-loop get/set rate against real
 * memcached next to memcaslap (libmemcached-tools' memaslap) with 100 concurrent operations, both
 * in the same run, plus a naive memjs loop (100 operations in flight) for why the driver speaks
 * the binary protocol itself. Generators on core 0, memcached (-t 1) on core 1 where possible.
 * stampede runs open loop with an in-flight cap of 4,000 (see IN_FLIGHT_CAP).
 * Workload as memaslap's default: 9 gets : 1 set, 64-byte keys, 1,024-byte values, 10k keys.
 *
 * Every rate is sent twice, in turns: through the installed command as a user runs it
 * (`node bin/stampede.js run <profile.yaml> --target memcached://… --out …` in its own process,
 * the compiled dist/ that `npm run build` makes) and through the library in-process (`runProfile`).
 * The search follows the command; both paths' dispatch lateness p99 is printed at every rate, with
 * their ratio.
 *
 *   npm run bench:memcached        (= npm run build && node --import tsx bench/memcached.ts)
 *
 * Sub-modes (each in its own pinned process):
 *   bench/memcached.ts trial <host:port> <rate> <seconds>
 *   bench/memcached.ts memjs <host:port> <seconds>
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TWO_CORES = cpus().length >= 2 && spawnSync('sh', ['-c', 'command -v taskset']).status === 0;
const SECONDS = 5;
const CONCURRENCY = 100;
/**
 * stampede's in-flight cap. memaslap's 100 is a closed loop's concurrency: it sends the next
 * operation when one returns, so a stall of the server just slows it down. An open-loop pacer keeps
 * sending through a stall: at 150k ops/s a 10 ms hiccup (memcached's one worker thread, a GC, the
 * VM) puts 1,500 more operations in flight on top of the ~150 of a 1 ms round trip. The cap is a
 * memory bound for those moments, not a concurrency the target sees in steady state; at 1,000 the
 * hiccups alone drop sends above ~63k ops/s (measured), at 4,000 they do not.
 */
const IN_FLIGHT_CAP = 4000;
const KEY_PREFIX = 'stampede-bench-key-padded-to-sixty-four-bytes-like-memaslap:';
const KEYS = 10_000;
const VALUE_BYTES = 1024;

function pinned(core: string, command: string, args: string[]): [string, string[]] {
  return TWO_CORES ? ['taskset', ['-c', core, command, ...args]] : [command, args];
}

function profileFor(rate: number, seconds: number, mix: { kind: string; weight: number }[]) {
  return {
    name: 'bench-memcached',
    // JIT and connection warm-up: sent at the same rate, not measured (lateness included).
    warmup: 2,
    arrivals: 'constant',
    phases: [{ type: 'steady', rate, duration: seconds }],
    mix,
    keys: { count: KEYS, prefix: KEY_PREFIX, popularity: { type: 'uniform' } },
    valueSize: VALUE_BYTES,
    // 4 pipelined connections; see IN_FLIGHT_CAP.
    memcached: { connectionsPerShard: 4, inFlightCap: IN_FLIGHT_CAP, timeout: '2s' },
  };
}

const MIX = [
  { kind: 'get', weight: 9 },
  { kind: 'set', weight: 1 },
];

/** One trial's figures as both paths print them, from the run's result.json. */
function trialFigures(rate: number, result: RunResultFigures) {
  const mc = result.driver.transport?.protocol === 'memcached' ? result.driver.transport : { hits: 0, misses: 0 };
  return {
    rate,
    scheduled: result.requests.scheduled,
    sent: result.requests.sent,
    ok: result.requests.ok,
    dropped: result.requests.dropped,
    failed: result.requests.failed,
    p99Us: result.latencyUs.p99,
    lateness: result.generator?.sendLatenessUs,
    dispatch: result.generator?.dispatchLatenessUs,
    lagP99Ms: result.generator?.eventLoopLagMs.p99,
    cpu: result.generator?.cpu,
    hits: mc.hits,
    misses: mc.misses,
  };
}

type RunResultFigures = import('../src/recorder/result.ts').RunResult;

/** The same trial through the installed command, in its own pinned process: a YAML profile, `stampede run`, its result.json. */
function commandTrial(server: string, rate: number, seconds: number): Trial {
  const dir = mkdtempSync(join(tmpdir(), 'stampede-bench-cmd-'));
  try {
    const profile = join(dir, 'bench-memcached.yaml');
    writeFileSync(profile, stringify({ ...profileFor(rate, seconds, MIX), seed: 1 }));
    const out = join(dir, 'run');
    const [cmd, args] = pinned('0', process.execPath, [join(ROOT, 'bin/stampede.js'), 'run', profile, '--target', `memcached://${server}`, '--out', out, '--quiet']);
    const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: (seconds + 60) * 1000 });
    let text: string;
    try {
      text = readFileSync(join(out, 'result.json'), 'utf8');
    } catch {
      throw new Error(`command trial at ${rate}/s wrote no result.json (exit ${r.status}): ${r.stderr}`);
    }
    return trialFigures(rate, JSON.parse(text) as RunResultFigures) as Trial;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function trial(server: string, rate: number, seconds: number): Promise<void> {
  const { runProfile } = await import('../src/pipeline/run.ts');
  const { makeProfile } = await import('../test/helpers/profile.ts');
  const out = mkdtempSync(join(tmpdir(), 'stampede-bench-'));
  try {
    const { result } = await runProfile(makeProfile(profileFor(rate, seconds, MIX) as never), { target: `memcached://${server}`, outDir: out });
    process.stdout.write(`${JSON.stringify(trialFigures(rate, result))}\n`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** A naive memjs closed loop: 100 operations in flight, 9 gets : 1 set, for `seconds`. Prints ops/s. */
async function memjsLoop(server: string, seconds: number): Promise<void> {
  const memjs = (await import('memjs')).default;
  const client = memjs.Client.create(server, { timeout: 2, logger: { log: () => {} } });
  const value = Buffer.alloc(VALUE_BYTES, 0x76);
  let ops = 0;
  let i = 0;
  const end = performance.now() + seconds * 1000;
  const one = (): Promise<void> => {
    const key = KEY_PREFIX + ((i++ * 7919) % KEYS);
    return (i % 10 === 0 ? client.set(key, value, { expires: 0 }).then(() => undefined) : client.get(key).then(() => undefined)).then(() => {
      ops++;
      if (performance.now() < end) return one();
    });
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
  process.stdout.write(`${JSON.stringify({ opsPerSecond: ops / ((performance.now() - start) / 1000) })}\n`);
  client.close();
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Trial {
  rate: number;
  scheduled: number;
  sent: number;
  ok: number;
  dropped: number;
  failed: number;
  p99Us: number;
  lateness: { p99: number };
  dispatch: { p99: number };
  lagP99Ms: number;
  cpu: number;
  hits: number;
  misses: number;
}

function runTrial(server: string, rate: number, seconds: number): Trial {
  const [cmd, args] = pinned('0', process.execPath, ['--import', 'tsx', SELF, 'trial', server, String(rate), String(seconds)]);
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: (seconds + 60) * 1000 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`trial at ${rate}/s failed: ${r.stderr}`);
  return JSON.parse(line) as Trial;
}

async function main(): Promise<void> {
  const port = await freePort();
  const server = `127.0.0.1:${port}`;
  const mcArgs = ['-l', '127.0.0.1', '-p', String(port), '-U', '0', '-t', '1', '-m', '256', ...(process.getuid?.() === 0 ? ['-u', 'nobody'] : [])];
  const [cmd, args] = pinned('1', 'memcached', mcArgs);
  const memcached: ChildProcess = spawn(cmd, args, { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  try {
    console.log(
      `load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(
      `bench:memcached — generators on core ${TWO_CORES ? 0 : '(unpinned)'}, memcached -t 1 on core ${TWO_CORES ? 1 : '(unpinned)'}, ${SECONDS} s per run, memaslap -c ${CONCURRENCY}, stampede in-flight cap ${IN_FLIGHT_CAP}`,
    );
    if (spawnSync('sh', ['-c', 'command -v memcaslap']).status !== 0 && process.getuid?.() === 0) {
      spawnSync('sh', ['-c', 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libmemcached-tools >/dev/null'], { stdio: 'inherit', timeout: 300_000 });
    }
    const [mcmd, margs] = pinned('0', 'memcaslap', ['-s', server, '-T', '1', '-c', String(CONCURRENCY), '-t', `${SECONDS}s`]);
    const memaslapRun = () => Number(/TPS: (\d+)/.exec(execFileSync(mcmd, margs, { encoding: 'utf8', timeout: (SECONDS + 30) * 1000 }))?.[1]);
    const memaslap = Math.max(memaslapRun(), memaslapRun());
    console.log(`memcaslap (closed loop, -c ${CONCURRENCY}, 9:1 get:set, 1 KiB values, best of 2): ${memaslap} ops/s`);
    const [jcmd, jargs] = pinned('0', process.execPath, ['--import', 'tsx', SELF, 'memjs', server, String(SECONDS)]);
    const memjs = JSON.parse(
      execFileSync(jcmd, jargs, { cwd: ROOT, encoding: 'utf8', timeout: (SECONDS + 30) * 1000 })
        .trim()
        .split('\n')
        .pop()!,
    ) as { opsPerSecond: number };
    console.log(`naive memjs loop (closed loop, ${CONCURRENCY} in flight): ${Math.round(memjs.opsPerSecond)} ops/s = ${(memjs.opsPerSecond / memaslap).toFixed(2)}× memaslap`);
    let lo = 0;
    let hi = memaslap * 1.5;
    let best: Trial | undefined;
    let bestLibrary: Trial | undefined;
    const ratios: number[] = [];
    // Best of two: a busy neighbour can make a run look worse, never better.
    const sustained = (x: Trial) => x.dropped === 0 && x.failed === 0 && x.sent === x.scheduled && x.dispatch.p99 < 5_000;
    const bestOfTwo = (send: () => Trial) => {
      const first = send();
      return sustained(first) ? first : send();
    };
    for (let round = 0; round < 7 && hi - lo > 2000; round++) {
      const rate = Math.round((lo + hi) / 2 / 1000) * 1000;
      const command = bestOfTwo(() => commandTrial(server, rate, SECONDS));
      const library = bestOfTwo(() => runTrial(server, rate, SECONDS));
      const ratio = command.dispatch.p99 / Math.max(1, library.dispatch.p99);
      ratios.push(ratio);
      console.log(`  at ${rate} ops/s: dispatch lateness p99 command ${ms(command.dispatch.p99)} / library ${ms(library.dispatch.p99)} = ${ratio.toFixed(2)}×`);
      for (const [path, t] of [
        ['command', command],
        ['library', library],
      ] as const) {
        console.log(
          `    ${path}: ${sustained(t) ? 'sustained' : 'NOT sustained'} (dropped ${t.dropped}, failed ${t.failed}, dispatch lateness p99 ${ms(t.dispatch.p99)}, send lateness p99 ${ms(t.lateness.p99)}, event-loop lag p99 ${t.lagP99Ms} ms, latency p99 ${ms(t.p99Us)}, hits ${t.hits}, misses ${t.misses}, cpu ${t.cpu})`,
        );
      }
      if (sustained(library) && (bestLibrary === undefined || rate > bestLibrary.rate)) bestLibrary = library;
      if (sustained(command)) {
        lo = rate;
        best = command;
      } else hi = rate;
    }
    const max = best?.rate ?? 0;
    const libraryMax = bestLibrary?.rate ?? 0;
    console.log(`stampede run (the command) max sustained open-loop get/set rate: ${max} ops/s = ${(max / memaslap).toFixed(2)}× memaslap`);
    console.log(`runProfile (in-process) at the same rates: highest sustained ${libraryMax} ops/s = ${(libraryMax / memaslap).toFixed(2)}× memaslap`);
    console.log(`command / library dispatch lateness p99: ${ratios.map((r) => r.toFixed(2)).join(', ')} (worst ${Math.max(...ratios).toFixed(2)}×)`);
  } finally {
    if (memcached.pid !== undefined && memcached.exitCode === null) process.kill(memcached.pid, 'SIGTERM');
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'trial') await trial(rest[0]!, Number(rest[1]), Number(rest[2]));
else if (mode === 'memjs') await memjsLoop(rest[0]!, Number(rest[1]));
else await main();

function ms(us: number): string {
  return `${(us / 1000).toFixed(2)} ms`;
}
