/**
 * HTTP generator benchmark: stampede's highest sustained open-loop rate next to autocannon's and
 * wrk's closed-loop maximum against the same minimal raw node:net responder, the same against that
 * responder behind TLS (https://, stampede and autocannon only: wrk has no CA option), and the stall
 * target at a fixed rate through stampede and autocannon with each one's p99 against the analytic
 * value. Generator on core 0, target on core 1 (taskset) where the machine has two cores. Every load
 * goes to 127.0.0.1 and is bounded in time.
 *
 *   node --import tsx bench/http.ts [--seconds N] [--only plain|https|stall]     (npm run bench:http -- …)
 *
 * --seconds sets each run's measured duration (default 5; 1 checks that the bench works, its
 * figures mean nothing); --only runs one section.
 *
 * Sub-modes (used by the script itself, each in its own pinned process):
 *   bench/http.ts responder <port> [stallMs periodMs [tlsDir]]
 *   bench/http.ts trial <url> <rate> <seconds> <connections> <pipelining> [caFile]
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { parseArgs } from 'node:util';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TWO_CORES = cpus().length >= 2 && hasCommand('taskset');
const GENERATOR_CORE = '0';
const TARGET_CORE = '1';
const SECTIONS = ['plain', 'https', 'stall'] as const;
const CONNECTIONS = 100;
const WARMUP_SECONDS = 2;

const RESPONSE = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok');

/**
 * The minimal target: one fixed response per request head seen ("\r\n\r\n"), optionally stalling
 * S ms every P ms; behind TLS when `tlsDir` holds server.pem and server-key.pem.
 */
function responder(port: number, stallMs: number, periodMs: number, tlsDir?: string): void {
  const t0 = performance.now();
  const replies: Buffer[] = [];
  const reply = (n: number) => (replies[n] ??= Buffer.concat(Array.from({ length: n }, () => RESPONSE)));
  const onConnection = (socket: Socket) => {
    let tail = 0; // how many bytes of "\r\n\r\n" the previous chunk ended with
    socket.on('data', (data) => {
      let n = 0;
      for (let i = 0; i < data.length; i++) {
        const b = data[i];
        if (b === (tail === 0 || tail === 2 ? 13 : 10)) {
          tail++;
          if (tail === 4) {
            n++;
            tail = 0;
          }
        } else tail = b === 13 ? 1 : 0;
      }
      if (n === 0) return;
      const phase = (performance.now() - t0) % periodMs;
      if (stallMs > 0 && phase < stallMs) setTimeout(() => socket.write(reply(n)), stallMs - phase);
      else socket.write(reply(n));
    });
    socket.on('error', () => {});
  };
  const server = tlsDir
    ? createTlsServer({ key: readFileSync(join(tlsDir, 'server-key.pem')), cert: readFileSync(join(tlsDir, 'server.pem')) }, (socket) => {
        socket.setNoDelay(true);
        onConnection(socket);
      })
    : createServer({ noDelay: true }, onConnection);
  server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
  process.on('SIGTERM', () => process.exit(0));
}

/** One stampede open-loop trial in this process; prints the result's figures as JSON. */
async function trial(url: string, rate: number, seconds: number, connections: number, pipelining: number, ca?: string): Promise<void> {
  const { runProfile } = await import('../src/pipeline/run.ts');
  const { makeProfile } = await import('../test/helpers/profile.ts');
  const out = mkdtempSync(join(tmpdir(), 'stampede-bench-'));
  try {
    const profile = makeProfile({
      name: 'bench',
      // JIT and connection warm-up: sent at the same rate, not measured (lateness included).
      warmup: WARMUP_SECONDS,
      arrivals: 'constant',
      phases: [{ type: 'steady', rate, duration: seconds }],
      http: { connections, pipelining, inFlightCap: 20_000, timeout: '5s', ...(ca && { tls: { ca } }) },
    } as never);
    const { result } = await runProfile(profile, { target: url, outDir: out });
    const lateP99 = result.intervals.series.map((i) => i.gauges['generator.lagMs'] ?? 0);
    process.stdout.write(
      `${JSON.stringify({
        rate,
        scheduled: result.requests.scheduled,
        sent: result.requests.sent,
        ok: result.requests.ok,
        dropped: result.requests.dropped,
        failed: result.requests.failed,
        p50Us: result.latencyUs.p50,
        p99Us: result.latencyUs.p99,
        lateness: result.generator?.sendLatenessUs,
        dispatch: result.generator?.dispatchLatenessUs,
        intervalP99Us: result.intervals.series.filter((i) => !i.warmup).map((i) => i.latencyUs.p99),
        lag: lateP99,
        cpu: result.generator?.cpu,
        elapsedMs: result.wall.elapsedMs,
      })}\n`,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

interface Trial {
  rate: number;
  scheduled: number;
  sent: number;
  ok: number;
  dropped: number;
  failed: number;
  p50Us: number;
  p99Us: number;
  lateness: { p50: number; p99: number; max: number };
  dispatch: { p50: number; p99: number; max: number };
  intervalP99Us: number[];
  cpu: number;
}

function pinned(core: string, command: string, args: string[]): [string, string[]] {
  return TWO_CORES ? ['taskset', ['-c', core, command, ...args]] : [command, args];
}

function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

async function startResponder(stallMs = 0, periodMs = 1, tlsDir?: string): Promise<{ url: string; child: ChildProcess }> {
  const tlsArgs = tlsDir ? [tlsDir] : [];
  const [cmd, args] = pinned(TARGET_CORE, process.execPath, ['--import', 'tsx', SELF, 'responder', '0', String(stallMs), String(periodMs), ...tlsArgs]);
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('responder did not start')), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
  return { url: `${tlsDir ? 'https' : 'http'}://127.0.0.1:${port}`, child };
}

function stop(child: ChildProcess): void {
  if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
}

function runTrial(url: string, rate: number, seconds: number, connections: number, pipelining: number, ca?: string): Trial {
  const caArgs = ca ? [ca] : [];
  const [cmd, args] = pinned(GENERATOR_CORE, process.execPath, [
    '--import',
    'tsx',
    SELF,
    'trial',
    url,
    String(rate),
    String(seconds),
    String(connections),
    String(pipelining),
    ...caArgs,
  ]);
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: (seconds + 60) * 1000 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`trial at ${rate}/s failed: ${r.stderr}`);
  return JSON.parse(line) as Trial;
}

/**
 * Sustained: nothing dropped or failed, everything sent, the pacer on time (dispatch lateness p99
 * < 5 ms: the generator kept its schedule) and latency not growing (the second half's worst
 * interval p99 within 3× the first half's, or under 5 ms).
 */
function sustained(t: Trial): boolean {
  const half = Math.floor(t.intervalP99Us.length / 2);
  const early = Math.max(...t.intervalP99Us.slice(0, Math.max(1, half)));
  const late = Math.max(...t.intervalP99Us.slice(half));
  return t.dropped === 0 && t.failed === 0 && t.sent === t.scheduled && t.dispatch.p99 < 5_000 && late < Math.max(5_000, 3 * early);
}

function wrk(url: string, seconds: number): number {
  if (!hasCommand('wrk')) {
    if (process.getuid?.() === 0) spawnSync('sh', ['-c', 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null'], { stdio: 'inherit', timeout: 300_000 });
    if (!hasCommand('wrk')) return NaN;
  }
  const [cmd, args] = pinned(GENERATOR_CORE, 'wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, `${url}/`]);
  const out = execFileSync(cmd, args, { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
}

/** `ca`: a CA file autocannon's TLS trusts (through NODE_EXTRA_CA_CERTS: it has no option of its own). */
function autocannon(url: string, extra: string[], seconds: number, ca?: string): { rps: number; p99Ms: number; total: number } {
  const bin = join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');
  const [cmd, args] = pinned(GENERATOR_CORE, process.execPath, [bin, '-j', '-d', String(seconds), ...extra, `${url}/`]);
  const env = ca ? { ...process.env, NODE_EXTRA_CA_CERTS: ca } : process.env;
  const out = execFileSync(cmd, args, { encoding: 'utf8', env, timeout: (seconds + 30) * 1000, stdio: ['ignore', 'pipe', 'ignore'] });
  const j = JSON.parse(out) as { requests: { average: number; total: number }; latency: { p99: number } };
  return { rps: j.requests.average, p99Ms: j.latency.p99, total: j.requests.total };
}

/** Highest rate (to 500 req/s) the trial sustains, searched between 0 and `ceiling`. */
function searchMaxRate(url: string, pipelining: number, ceiling: number, seconds: number, ca?: string): number {
  let lo = 0;
  let hi = ceiling;
  for (let round = 0; round < 8 && hi - lo > 1000; round++) {
    const rate = Math.round((lo + hi) / 2 / 500) * 500;
    // Best of two: a busy neighbour can make a run look worse, never better.
    let t = runTrial(url, rate, seconds, CONNECTIONS, pipelining, ca);
    if (!sustained(t)) t = runTrial(url, rate, seconds, CONNECTIONS, pipelining, ca);
    const ok = sustained(t);
    console.log(
      `  stampede open loop at ${rate} req/s, pipelining ${pipelining}: ${ok ? 'sustained' : 'NOT sustained'} (sent ${t.sent}/${t.scheduled}, dropped ${t.dropped}, dispatch lateness p99 ${(t.dispatch.p99 / 1000).toFixed(2)} ms, send lateness p99 ${(t.lateness.p99 / 1000).toFixed(2)} ms, latency p99 ${(t.p99Us / 1000).toFixed(2)} ms, cpu ${t.cpu})`,
    );
    if (ok) lo = rate;
    else hi = rate;
  }
  return lo;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, only: { type: 'string' } } });
  const seconds = Number(values.seconds);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 60) throw new Error(`--seconds ${values.seconds}: expected a whole number of seconds, 1–60`);
  const only = values.only as (typeof SECTIONS)[number] | undefined;
  if (only !== undefined && !SECTIONS.includes(only)) throw new Error(`--only ${only}: expected one of ${SECTIONS.join(', ')}`);
  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`bench:http — generator on core ${TWO_CORES ? GENERATOR_CORE : '(unpinned)'}, target on core ${TWO_CORES ? TARGET_CORE : '(unpinned)'}, ${seconds} s per run`);
  if (only === undefined || only === 'plain') await plainRows(seconds);
  if (only === undefined || only === 'https') await httpsRows(seconds);
  if (only === undefined || only === 'stall') await stallRows();
}

async function plainRows(seconds: number): Promise<void> {
  const target = await startResponder();
  try {
    // Peers too get the better of two runs.
    const wrkRps = Math.max(wrk(target.url, seconds), wrk(target.url, seconds));
    console.log(`wrk (closed loop, 1 thread, ${CONNECTIONS} connections, best of 2): ${Math.round(wrkRps)} req/s`);
    const ac = bestAutocannon(target.url, seconds);
    console.log(`autocannon (closed loop, ${CONNECTIONS} connections, best of 2): ${Math.round(ac.rps)} req/s`);
    // stampede's highest sustained open-loop rate, by binary search: once with one request in flight
    // per connection (as wrk and autocannon run here), once with pipelining 8 (a profile option).
    for (const pipelining of [1, 8]) {
      const max = searchMaxRate(target.url, pipelining, Math.max(wrkRps, ac.rps) * 2.5 || 200_000, seconds);
      console.log(
        `stampede max sustained open-loop rate, ${CONNECTIONS} connections × pipelining ${pipelining}: ${max} req/s = ${(max / ac.rps).toFixed(2)}× autocannon, ${(max / wrkRps).toFixed(2)}× wrk`,
      );
    }
  } finally {
    stop(target.child);
  }
}

/**
 * The same responder behind TLS, with a CA and server certificate made for this run (the tests'
 * helper): autocannon trusts the CA through NODE_EXTRA_CA_CERTS, stampede through http.tls.ca.
 * Every connection's handshake happens before the measured part (stampede dials before its clock,
 * and the warm-up runs first), so the rows compare steady-state encrypted traffic.
 */
async function httpsRows(seconds: number): Promise<void> {
  const { makeTestPki } = await import('../test/helpers/tls.ts');
  const dir = mkdtempSync(join(tmpdir(), 'stampede-bench-tls-'));
  const pki = await makeTestPki(dir);
  writeFileSync(join(dir, 'server.pem'), pki.server.cert);
  writeFileSync(join(dir, 'server-key.pem'), pki.server.key);
  const target = await startResponder(0, 1, dir);
  try {
    const ac = bestAutocannon(target.url, seconds, pki.files.ca);
    console.log(`https: autocannon (closed loop, ${CONNECTIONS} connections, best of 2): ${Math.round(ac.rps)} req/s`);
    for (const pipelining of [1, 8]) {
      const max = searchMaxRate(target.url, pipelining, ac.rps * 2.5 || 100_000, seconds, pki.files.ca);
      console.log(`https: stampede max sustained open-loop rate, ${CONNECTIONS} connections × pipelining ${pipelining}: ${max} req/s = ${(max / ac.rps).toFixed(2)}× autocannon`);
    }
  } finally {
    stop(target.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

function bestAutocannon(url: string, seconds: number, ca?: string): { rps: number } {
  const runs = [autocannon(url, ['-c', String(CONNECTIONS)], seconds, ca), autocannon(url, ['-c', String(CONNECTIONS)], seconds, ca)];
  return runs[0]!.rps >= runs[1]!.rps ? runs[0]! : runs[1]!;
}

async function stallRows(): Promise<void> {
  // The stall target: S = 100 ms every P = 500 ms at 1,000 req/s. Analytic p99 (see test/drivers/http.test.ts):
  // b + S − 0.01·P with b the base round trip.
  const S = 100;
  const P = 500;
  const stall = await startResponder(S, P);
  try {
    const t = runTrial(stall.url, 1000, 10, 16, 16);
    const analyticMs = t.p50Us / 1000 + S - 0.01 * P;
    const sp99 = t.p99Us / 1000;
    console.log(`stall target (S ${S} ms every P ${P} ms, 1,000 req/s, 10 s): analytic p99 ${analyticMs.toFixed(1)} ms`);
    console.log(`  stampede (open loop): p99 ${sp99.toFixed(1)} ms, error ${(((sp99 - analyticMs) / analyticMs) * 100).toFixed(1)}%`);
    // autocannon at a fixed overall rate: -R 1000 spread over its connections (its own loop).
    const ac = autocannon(stall.url, ['-c', '16', '-R', '1000'], 10);
    console.log(
      `  autocannon -c 16 -R 1000 (closed loop per connection): p99 ${ac.p99Ms.toFixed(1)} ms = ${(ac.p99Ms / analyticMs).toFixed(2)}× the analytic value, error ${(((ac.p99Ms - analyticMs) / analyticMs) * 100).toFixed(1)}%, ${ac.total} requests sent of 10,000 asked`,
    );
    const ac1 = autocannon(stall.url, ['-c', '1', '-R', '1000'], 10);
    console.log(
      `  autocannon -c 1 -R 1000: p99 ${ac1.p99Ms.toFixed(1)} ms = ${(ac1.p99Ms / analyticMs).toFixed(2)}× the analytic value, error ${(((ac1.p99Ms - analyticMs) / analyticMs) * 100).toFixed(1)}%, ${ac1.total} requests sent of 10,000 asked`,
    );
  } finally {
    stop(stall.child);
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'responder') responder(Number(rest[0]), Number(rest[1] ?? 0), Number(rest[2] ?? 1), rest[3]);
else if (mode === 'trial') await trial(rest[0]!, Number(rest[1]), Number(rest[2]), Number(rest[3]), Number(rest[4]), rest[5]);
else await main();
