/**
 * Redis generator benchmark: stampede's highest sustained open-loop GET and SET rates against a real
 * redis-server next to redis-benchmark (Debian redis-tools) at equal connections and pipelining,
 * in the same run, plus an ioredis closed loop (auto-pipelining) for why the driver speaks RESP
 * itself. Generators on core 0, redis-server on core 1 where possible. Workload as
 * redis-benchmark's `-t set,get -r 10000`: 3-byte values over 10,000 keys; the GETs find what the
 * SETs wrote.
 *
 * stampede is the installed command as a user runs it (`node bin/stampede.js run <profile.yaml>
 * --target redis://… --out …`, the compiled dist/ that `npm run build` makes), in its own pinned
 * process; a rate is sustained when nothing was dropped or failed, every request was sent and the
 * dispatch lateness p99 stayed under 5 ms (as bench:memcached judges it).
 *
 *   npm run bench:redis            (= npm run build && node --import tsx bench/redis.ts)
 *   BENCH_REDIS=50x1,10x16         connections × pipelining per configuration (default 50x1,4x16)
 *   IOREDIS=/path/to/node_modules/ioredis   where ioredis is, when it is not installed here (skipped if neither)
 *
 * Sub-mode (in its own pinned process): bench/redis.ts ioredis <host:port> <connections> <pipeline> <get|set> <seconds>
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stringify } from 'yaml';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TWO_CORES = cpus().length >= 2 && spawnSync('sh', ['-c', 'command -v taskset']).status === 0;
const SECONDS = 5;
const KEYS = 10_000;
const VALUE_BYTES = 3;
/**
 * stampede's in-flight cap: a memory bound, not a concurrency the server sees — that is
 * connections × pipelining, as redis-benchmark's. An open loop keeps sending through a stall of the
 * server or the VM, and at equal pipelining what cannot go out yet waits in the client: at 500k/s
 * a 1 ms tick brings 500 commands for 64 slots, and a 10 ms hiccup 5,000 (bench:memcached's 4,000,
 * with no depth, dropped a few at 350k/s for that alone).
 */
const IN_FLIGHT_CAP = 20_000;

interface Config {
  connections: number;
  pipeline: number;
}

function configs(): Config[] {
  return (process.env.BENCH_REDIS ?? '50x1,4x16').split(',').map((c) => {
    const [connections, pipeline] = c.split('x').map(Number);
    return { connections: connections!, pipeline: pipeline! };
  });
}

function pinned(core: string, command: string, args: string[]): [string, string[]] {
  return TWO_CORES ? ['taskset', ['-c', core, command, ...args]] : [command, args];
}

function profileFor(op: 'get' | 'set', rate: number, config: Config) {
  return {
    name: `bench-redis-${op}`,
    seed: 1,
    // JIT and connection warm-up: sent at the same rate, not measured.
    warmup: 2,
    arrivals: 'constant',
    phases: [{ type: 'steady', rate, duration: SECONDS }],
    mix: [{ kind: op, weight: 1 }],
    keys: { count: KEYS, prefix: 'key:', popularity: { type: 'uniform' } },
    valueSize: VALUE_BYTES,
    // Equal pipelining: at most -P commands in flight on each connection, as redis-benchmark; the rest wait their turn.
    redis: { connectionsPerShard: config.connections, pipelining: config.pipeline, inFlightCap: IN_FLIGHT_CAP, timeout: '2s' },
  };
}

interface Trial {
  rate: number;
  scheduled: number;
  sent: number;
  ok: number;
  dropped: number;
  failed: number;
  dispatchP99Us: number;
  latencyP99Us: number;
  cpu: number;
  hits: number;
  misses: number;
}

/** One trial through the installed command, in its own pinned process: a YAML profile, `stampede run`, its result.json. */
function commandTrial(server: string, op: 'get' | 'set', rate: number, config: Config): Trial {
  const dir = mkdtempSync(join(tmpdir(), 'stampede-bench-redis-'));
  try {
    const profile = join(dir, 'bench-redis.yaml');
    writeFileSync(profile, stringify(profileFor(op, rate, config)));
    const out = join(dir, 'run');
    const [cmd, args] = pinned('0', process.execPath, [join(ROOT, 'bin/stampede.js'), 'run', profile, '--target', `redis://${server}`, '--out', out, '--quiet']);
    const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: (SECONDS + 60) * 1000 });
    let text: string;
    try {
      text = readFileSync(join(out, 'result.json'), 'utf8');
    } catch {
      throw new Error(`command trial at ${rate}/s wrote no result.json (exit ${r.status}): ${r.stderr}`);
    }
    const result = JSON.parse(text) as import('../src/recorder/result.ts').RunResult;
    const redis = result.driver.transport?.protocol === 'redis' ? result.driver.transport : { hits: 0, misses: 0 };
    return {
      rate,
      scheduled: result.requests.scheduled,
      sent: result.requests.sent,
      ok: result.requests.ok,
      dropped: result.requests.dropped,
      failed: result.requests.failed,
      dispatchP99Us: result.generator?.dispatchLatenessUs.p99 ?? 0,
      latencyP99Us: result.latencyUs.p99,
      cpu: result.generator?.cpu ?? 0,
      hits: redis.hits,
      misses: redis.misses,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** redis-benchmark's SET and GET rates (ops/s) at `config`, best of two runs. */
function redisBenchmark(port: number, config: Config): { set: number; get: number } {
  const requests = String(config.pipeline > 1 ? 2_000_000 : 500_000);
  const args = [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-t',
    'set,get',
    '-c',
    String(config.connections),
    '-P',
    String(config.pipeline),
    '-n',
    requests,
    '-r',
    String(KEYS),
    '-d',
    String(VALUE_BYTES),
    '--csv',
  ];
  const once = () => {
    const [cmd, cargs] = pinned('0', 'redis-benchmark', args);
    const csv = execFileSync(cmd, cargs, { encoding: 'utf8', timeout: 300_000 });
    const rps = (test: string) => Number(new RegExp(`^"${test}","([\\d.]+)"`, 'm').exec(csv)?.[1] ?? 0);
    return { set: rps('SET'), get: rps('GET') };
  };
  const a = once();
  const b = once();
  return { set: Math.max(a.set, b.set), get: Math.max(a.get, b.get) };
}

/** ioredis closed loop: `connections` clients with auto-pipelining, `pipeline` commands in flight on each, for `seconds`. Prints ops/s. */
async function ioredisLoop(server: string, connections: number, pipeline: number, op: string, seconds: number): Promise<void> {
  const where = process.env.IOREDIS ? pathToFileURL(join(process.env.IOREDIS, 'built/index.js')).href : 'ioredis';
  const Redis = ((await import(where)) as { default: new (options: object) => IoRedis }).default;
  const [host, port] = server.split(':');
  const clients = Array.from({ length: connections }, () => new Redis({ host, port: Number(port), enableAutoPipelining: true, lazyConnect: false }));
  await Promise.all(clients.map((c) => c.ping()));
  const value = Buffer.alloc(VALUE_BYTES, 0x30);
  let ops = 0;
  let i = 0;
  let end = 0;
  const one = (client: IoRedis): Promise<void> => {
    const key = `key:${(i++ * 7919) % KEYS}`;
    return (op === 'set' ? client.set(key, value) : client.get(key)).then(() => {
      ops++;
      if (performance.now() < end) return one(client);
    });
  };
  const loop = async () => Promise.all(clients.flatMap((c) => Array.from({ length: pipeline }, () => one(c))));
  // Warm-up as stampede's: 2 s at full speed, not measured.
  end = performance.now() + 2000;
  await loop();
  ops = 0;
  const start = performance.now();
  const cpuBefore = process.cpuUsage();
  end = start + seconds * 1000;
  await loop();
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(`${JSON.stringify({ opsPerSecond: ops / ((performance.now() - start) / 1000), cpuUsPerOp: (cpu.user + cpu.system) / ops })}\n`);
  for (const c of clients) c.disconnect();
}

interface IoRedis {
  ping(): Promise<unknown>;
  get(key: string): Promise<unknown>;
  set(key: string, value: Buffer): Promise<unknown>;
  disconnect(): void;
}

/** The ioredis loop in its own pinned process, or undefined when ioredis is not to be found. */
function ioredisRate(server: string, config: Config, op: 'get' | 'set'): { opsPerSecond: number; cpuUsPerOp: number } | undefined {
  const [cmd, args] = pinned('0', process.execPath, ['--import', 'tsx', SELF, 'ioredis', server, String(config.connections), String(config.pipeline), op, String(SECONDS)]);
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: (SECONDS + 60) * 1000 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  return line.startsWith('{') ? (JSON.parse(line) as { opsPerSecond: number; cpuUsPerOp: number }) : undefined;
}

const sustained = (t: Trial) => t.dropped === 0 && t.failed === 0 && t.sent === t.scheduled && t.dispatchP99Us < 5_000;

/**
 * The highest sustained rate for `op`: a binary search between 0 and twice the peer's (at most
 * 2M/s), each rate given a second try (a busy neighbour can make a run look worse, never better).
 */
function search(server: string, op: 'get' | 'set', config: Config, peer: number): Trial | undefined {
  let lo = 0;
  let hi = Math.min(Math.max(peer * 2, 20_000), 2_000_000);
  let best: Trial | undefined;
  for (let round = 0; round < 7 && hi - lo > 2000; round++) {
    const rate = Math.round((lo + hi) / 2 / 1000) * 1000;
    const first = commandTrial(server, op, rate, config);
    const t = sustained(first) ? first : commandTrial(server, op, rate, config);
    console.log(
      `    ${op.toUpperCase()} at ${rate}/s: ${sustained(t) ? 'sustained' : 'NOT sustained'} (dropped ${t.dropped}, failed ${t.failed}, dispatch lateness p99 ${ms(t.dispatchP99Us)}, latency p99 ${ms(t.latencyP99Us)}, hits ${t.hits}, misses ${t.misses}, cpu ${t.cpu})`,
    );
    if (sustained(t)) {
      lo = rate;
      best = t;
    } else hi = rate;
  }
  return best;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function main(): Promise<void> {
  const port = await freePort();
  const server = `127.0.0.1:${port}`;
  const [cmd, args] = pinned('1', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  const redis: ChildProcess = spawn(cmd, args, { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  try {
    console.log(
      `load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(
      `bench:redis — generators on core ${TWO_CORES ? 0 : '(unpinned)'}, redis-server on core ${TWO_CORES ? 1 : '(unpinned)'}, ${SECONDS} s per stampede run after 2 s warm-up, ${KEYS} keys, ${VALUE_BYTES}-byte values, stampede in-flight cap ${IN_FLIGHT_CAP}`,
    );
    for (const config of configs()) {
      const shape = `-c ${config.connections} -P ${config.pipeline}`;
      const peer = redisBenchmark(port, config);
      console.log(`  redis-benchmark ${shape} (closed loop, best of 2): SET ${Math.round(peer.set)} ops/s, GET ${Math.round(peer.get)} ops/s`);
      for (const op of ['set', 'get'] as const) {
        const io = ioredisRate(server, config, op);
        const peerRate = peer[op];
        console.log(
          io === undefined
            ? '    ioredis: not installed (npm install --no-save ioredis, or IOREDIS=<its folder>): skipped'
            : `    ioredis ${config.connections} clients × ${config.pipeline} in flight, auto-pipelining (closed loop): ${op.toUpperCase()} ${Math.round(io.opsPerSecond)} ops/s = ${(io.opsPerSecond / peerRate).toFixed(2)}× redis-benchmark, ${io.cpuUsPerOp.toFixed(1)} µs of CPU per op`,
        );
        const best = search(server, op, config, peerRate);
        const max = best?.rate ?? 0;
        console.log(
          `  stampede run ${config.connections} connections × pipelining ${config.pipeline} (open loop) ${op.toUpperCase()}: ${max} ops/s sustained = ${(max / peerRate).toFixed(2)}× redis-benchmark ${shape}`,
        );
      }
    }
  } finally {
    if (redis.pid !== undefined && redis.exitCode === null) process.kill(redis.pid, 'SIGTERM');
  }
}

function ms(us: number): string {
  return `${(us / 1000).toFixed(2)} ms`;
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'ioredis') await ioredisLoop(rest[0]!, Number(rest[1]), Number(rest[2]), rest[3]!, Number(rest[4]));
else await main();
