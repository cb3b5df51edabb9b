/**
 * HTTP generator benchmark: stampede's highest sustained open-loop rate next to its peers' closed-loop
 * maximum against the same target, in the same run:
 * - plain: a minimal raw node:net responder; wrk and autocannon;
 * - https: that responder behind node:tls; autocannon (wrk has no CA option);
 * - h2: nginx with TLS and http2 (started here on a free port, certificate made here); h2load
 *   (Debian nghttp2-client) at the same connections × streams;
 * - stall: the stall target at a fixed rate through stampede and autocannon, each one's p99 against
 *   the analytic value.
 * stampede runs twice over: in this bench's own process through `runProfile` ("in-process"), and as
 * a user runs it, `node bin/stampede.js run <profile.yaml> --target … --out <tmp> --quiet` in its
 * own process, read back from its result.json ("command"; bin/stampede.js runs dist/, so
 * `npm run bench:http` builds first). Generator on core 0, target on core 1 (taskset) where the
 * machine has two cores. Every load goes to 127.0.0.1 and is bounded in count and time.
 *
 *   npm run build && node --import tsx bench/http.ts [--seconds N] [--only plain|https|h2|stall]     (npm run bench:http -- …)
 *
 * --seconds sets each run's measured duration (default 5; 1 checks that the bench works, its
 * figures mean nothing); --only runs one section.
 *
 * Sub-modes (used by the script itself, each in its own pinned process):
 *   bench/http.ts responder <port> [stallMs periodMs [tlsDir]]
 *   bench/http.ts trial <url> <rate> <seconds> <connections> <pipelining> [caFile|- [h2]]
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp, createServer, type AddressInfo, type Socket } from 'node:net';
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
const SECTIONS = ['plain', 'https', 'h2', 'stall'] as const;
const CONNECTIONS = 100;
const WARMUP_SECONDS = 2;
/** HTTP/2 against nginx: the shape, 4 connections × 100 streams, for stampede and h2load alike. */
const H2_CONNECTIONS = 4;
const H2_STREAMS = 100;
const STAMPEDE = join(ROOT, 'bin', 'stampede.js');

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

/** What a trial is: the load stampede is asked to send. */
interface TrialSpec {
  url: string;
  rate: number;
  seconds: number;
  connections: number;
  pipelining: number;
  ca?: string | undefined;
  http2?: boolean;
}

/** The profile of a trial, as both paths get it (an object in-process, YAML for the command). */
function trialProfile(t: TrialSpec): Record<string, unknown> {
  return {
    name: 'bench',
    // JIT and connection warm-up: sent at the same rate, not measured (lateness included).
    warmup: WARMUP_SECONDS,
    arrivals: 'constant',
    phases: [{ type: 'steady', rate: t.rate, duration: t.seconds }],
    http: { connections: t.connections, pipelining: t.pipelining, http2: t.http2 ?? false, inFlightCap: 20_000, timeout: '5s', ...(t.ca && { tls: { ca: t.ca } }) },
  };
}

interface ResultFigures {
  requests: { scheduled: number; sent: number; ok: number; dropped: number; failed: number };
  latencyUs: { p50: number; p99: number };
  intervals: { series: { tMs: number; warmup?: boolean; goodputRps: number; latencyUs: { p99: number } }[] };
  generator?: { cpu: number; cpuPeak: number; sendLatenessUs: Trial['lateness']; dispatchLatenessUs: Trial['dispatch'] };
}

function figures(rate: number, seconds: number, result: ResultFigures): Trial {
  // Completions per second over the whole measured intervals, by completion time: a saturated run's
  // throughput (its drain, finishing the backlog after the schedule ends, is not in it).
  const measured = result.intervals.series.filter((i) => !i.warmup && i.tMs + 1000 <= (WARMUP_SECONDS + seconds) * 1000);
  return {
    goodputRps: measured.reduce((a, i) => a + i.goodputRps, 0) / Math.max(1, measured.length),
    rate,
    scheduled: result.requests.scheduled,
    sent: result.requests.sent,
    ok: result.requests.ok,
    dropped: result.requests.dropped,
    failed: result.requests.failed,
    p50Us: result.latencyUs.p50,
    p99Us: result.latencyUs.p99,
    lateness: result.generator!.sendLatenessUs,
    dispatch: result.generator!.dispatchLatenessUs,
    intervalP99Us: result.intervals.series.filter((i) => !i.warmup).map((i) => i.latencyUs.p99),
    cpu: result.generator!.cpu,
    cpuPeak: result.generator!.cpuPeak,
  };
}

/** One stampede open-loop trial in this process (runProfile); prints its figures as JSON. */
async function trial(spec: TrialSpec): Promise<void> {
  const { runProfile } = await import('../src/pipeline/run.ts');
  const { makeProfile } = await import('../test/helpers/profile.ts');
  const out = mkdtempSync(join(tmpdir(), 'stampede-bench-'));
  try {
    const { result } = await runProfile(makeProfile(trialProfile(spec) as never), { target: spec.url, outDir: out });
    process.stdout.write(`${JSON.stringify(figures(spec.rate, spec.seconds, result as ResultFigures))}\n`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

interface Trial {
  rate: number;
  goodputRps: number;
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
  cpuPeak: number;
}

function pinned(core: string, command: string, args: string[]): [string, string[]] {
  return TWO_CORES ? ['taskset', ['-c', core, command, ...args]] : [command, args];
}

function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

/** The command, installed from Debian's packages when it is missing and we are root. */
function ensureCommand(name: string, debianPackage: string): boolean {
  if (!hasCommand(name) && process.getuid?.() === 0) {
    spawnSync('sh', ['-c', `DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${debianPackage} >/dev/null`], { stdio: 'inherit', timeout: 300_000 });
  }
  return hasCommand(name);
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

/** The in-process path: `trial` in a pinned child process. */
function runTrial(t: TrialSpec): Trial {
  const [cmd, args] = pinned(GENERATOR_CORE, process.execPath, [
    '--import',
    'tsx',
    SELF,
    'trial',
    t.url,
    String(t.rate),
    String(t.seconds),
    String(t.connections),
    String(t.pipelining),
    t.ca ?? '-',
    t.http2 ? 'h2' : 'h1',
  ]);
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: (t.seconds + 60) * 1000 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`trial at ${t.rate}/s failed: ${r.stderr}`);
  return JSON.parse(line) as Trial;
}

/** The command path: `node bin/stampede.js run <profile.yaml> --target … --out <tmp> --quiet`, pinned, its result.json read back. */
async function runCommand(t: TrialSpec): Promise<Trial> {
  const { stringify } = await import('yaml');
  const { MINIMAL_TOPOLOGY } = await import('../test/helpers/profile.ts');
  const dir = mkdtempSync(join(tmpdir(), 'stampede-bench-cmd-'));
  try {
    const profileFile = join(dir, 'bench.yaml');
    writeFileSync(profileFile, stringify({ ...trialProfile(t), topology: MINIMAL_TOPOLOGY }));
    const out = join(dir, 'out');
    mkdirSync(out);
    const [cmd, args] = pinned(GENERATOR_CORE, process.execPath, [STAMPEDE, 'run', profileFile, '--target', t.url, '--out', out, '--quiet']);
    // The exit status is the verdict (a saturated generator is INVALID, exit 1): the figures are in result.json either way.
    const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: (t.seconds + 60) * 1000 });
    let result: ResultFigures;
    try {
      result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as ResultFigures;
    } catch {
      throw new Error(`stampede run at ${t.rate}/s wrote no result.json (exit ${r.status}): ${r.stderr}`);
    }
    return figures(t.rate, t.seconds, result);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  if (!ensureCommand('wrk', 'wrk')) return NaN;
  const [cmd, args] = pinned(GENERATOR_CORE, 'wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, `${url}/`]);
  const out = execFileSync(cmd, args, { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
}

/** h2load (closed loop, one thread): `connections` × `streams` concurrent streams for `seconds` after a 1 s warm-up. */
function h2load(url: string, connections: number, streams: number, seconds: number): number {
  if (!ensureCommand('h2load', 'nghttp2-client')) return NaN;
  const [cmd, args] = pinned(GENERATOR_CORE, 'h2load', ['-c', String(connections), '-m', String(streams), '-D', String(seconds), '--warm-up-time=1', `${url}/`]);
  const out = execFileSync(cmd, args, { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  const failed = Number(/requests: .* (\d+) failed/.exec(out)?.[1] ?? 0);
  if (failed > 0) throw new Error(`h2load: ${failed} requests failed:\n${out}`);
  return Number(/finished in [\d.]+\w*, ([\d.]+) req\/s/.exec(out)?.[1]);
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

type Runner = (t: TrialSpec) => Trial | Promise<Trial>;

/** Highest rate (to the nearest 500 req/s) the trial sustains, searched between `floor` and `ceiling`. */
async function searchMaxRate(label: string, run: Runner, base: Omit<TrialSpec, 'rate'>, floor: number, ceiling: number): Promise<{ rate: number; at?: Trial }> {
  let lo = floor;
  let hi = ceiling;
  let best: Trial | undefined;
  for (let round = 0; round < 8 && hi - lo > 1000; round++) {
    const rate = Math.round((lo + hi) / 2 / 500) * 500;
    // Best of two: a busy neighbour can make a run look worse, never better.
    let t = await run({ ...base, rate });
    if (!sustained(t)) t = await run({ ...base, rate });
    const ok = sustained(t);
    console.log(
      `  ${label} at ${rate} req/s: ${ok ? 'sustained' : 'NOT sustained'} (sent ${t.sent}/${t.scheduled}, dropped ${t.dropped}, failed ${t.failed}, dispatch lateness p99 ${(t.dispatch.p99 / 1000).toFixed(2)} ms, send lateness p99 ${(t.lateness.p99 / 1000).toFixed(2)} ms, latency p99 ${(t.p99Us / 1000).toFixed(2)} ms, cpu ${t.cpu}, busiest interval ${t.cpuPeak})`,
    );
    if (ok) {
      lo = rate;
      best = t;
    } else hi = rate;
  }
  return { rate: lo, ...(best && { at: best }) };
}

/**
 * stampede's maximum by both paths: the in-process search over [0, ceiling], then the command's
 * over [½, 1¼] of that (it cannot differ by more without a bug, and each of its trials pays the CLI's start-up).
 */
async function bothPaths(label: string, base: Omit<TrialSpec, 'rate'>, ceiling: number): Promise<{ inProcess: number; command: number }> {
  const inProcess = (await searchMaxRate(`${label}, in-process`, runTrial, base, 0, ceiling)).rate;
  const command = (await searchMaxRate(`${label}, command`, runCommand, base, Math.floor(inProcess / 2), Math.max(2000, Math.ceil(inProcess * 1.25)))).rate;
  return { inProcess, command };
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Saturated throughput, robust to a busy machine: the peer's closed loop and stampede asked for
 * `ask` req/s (1.5× the peer: past what it completes, not so far that drops cost much), in-process and as the command, alternated `rounds`
 * times so that a neighbour's load falls on all three alike; stampede's figure is its completions
 * per second over the measured intervals. Prints each round and the median ratios.
 */
async function saturatedPairs(label: string, peerName: string, peer: () => number, base: Omit<TrialSpec, 'rate'>, ask: number, rounds = 3): Promise<void> {
  const ratios = { inProcess: [] as number[], command: [] as number[] };
  for (let round = 1; round <= rounds; round++) {
    const p = peer();
    // Past this round's peer too: a quieter moment must not find stampede capped by what it was asked.
    const asked = Math.max(ask, Math.round(1.5 * p));
    const inProcess = runTrial({ ...base, rate: asked });
    const command = await runCommand({ ...base, rate: asked });
    ratios.inProcess.push(inProcess.goodputRps / p);
    ratios.command.push(command.goodputRps / p);
    console.log(
      `  ${label} saturated, round ${round}: ${peerName} ${Math.round(p)} req/s; stampede asked ${asked}: in-process ${Math.round(inProcess.goodputRps)} (${ratio(inProcess.goodputRps, p)}, cpu ${inProcess.cpu}, busiest interval ${inProcess.cpuPeak}), command ${Math.round(command.goodputRps)} (${ratio(command.goodputRps, p)}, cpu ${command.cpu}, busiest interval ${command.cpuPeak})`,
    );
  }
  console.log(
    `${label} saturated throughput, median of ${rounds} alternated rounds: in-process ${median(ratios.inProcess).toFixed(2)}× ${peerName}, command ${median(ratios.command).toFixed(2)}× ${peerName}`,
  );
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
  if (only === undefined || only === 'h2') await h2Rows(seconds);
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
    const ceiling = Math.max(wrkRps, ac.rps) * 2.5 || 200_000;
    const base = { url: target.url, seconds, connections: CONNECTIONS };
    // One request in flight per connection, as wrk and autocannon run here: by both paths.
    const p1 = await bothPaths('stampede pipelining 1', { ...base, pipelining: 1 }, ceiling);
    for (const [path, max] of [
      ['in-process', p1.inProcess],
      ['command', p1.command],
    ] as const) {
      console.log(
        `stampede max sustained open-loop rate (${path}), ${CONNECTIONS} connections × pipelining 1: ${max} req/s = ${ratio(max, ac.rps)} autocannon, ${ratio(max, wrkRps)} wrk`,
      );
    }
    await saturatedPairs(
      'stampede pipelining 1',
      'autocannon',
      () => autocannon(target.url, ['-c', String(CONNECTIONS)], seconds).rps,
      { ...base, pipelining: 1 },
      Math.round(1.5 * ac.rps) || 100_000,
    );
    // Pipelining 8 (a profile option), in-process.
    const p8 = (await searchMaxRate('stampede pipelining 8, in-process', runTrial, { ...base, pipelining: 8 }, 0, ceiling)).rate;
    console.log(
      `stampede max sustained open-loop rate (in-process), ${CONNECTIONS} connections × pipelining 8: ${p8} req/s = ${ratio(p8, ac.rps)} autocannon, ${ratio(p8, wrkRps)} wrk`,
    );
  } finally {
    stop(target.child);
  }
}

/** A CA and a server certificate made for this run (the tests' helper), written where servers read them. */
async function makeCertificates(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const { makeTestPki } = await import('../test/helpers/tls.ts');
  const pki = await makeTestPki(dir);
  const cert = join(dir, 'server.pem');
  const key = join(dir, 'server-key.pem');
  writeFileSync(cert, pki.server.cert);
  writeFileSync(key, pki.server.key);
  return { ca: pki.files.ca, cert, key };
}

/**
 * The same responder behind TLS, with a CA and server certificate made for this run: autocannon
 * trusts the CA through NODE_EXTRA_CA_CERTS, stampede through http.tls.ca. Every connection's
 * handshake happens before the measured part (stampede dials before its clock, and the warm-up
 * runs first), so the rows compare steady-state encrypted traffic.
 */
async function httpsRows(seconds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'stampede-bench-tls-'));
  const certs = await makeCertificates(dir);
  const target = await startResponder(0, 1, dir);
  try {
    const ac = bestAutocannon(target.url, seconds, certs.ca);
    console.log(`https: autocannon (closed loop, ${CONNECTIONS} connections, best of 2): ${Math.round(ac.rps)} req/s`);
    for (const pipelining of [1, 8]) {
      const max = await bothPaths(
        `https: stampede pipelining ${pipelining}`,
        { url: target.url, seconds, connections: CONNECTIONS, pipelining, ca: certs.ca },
        ac.rps * 2.5 || 100_000,
      );
      for (const [path, rate] of [
        ['in-process', max.inProcess],
        ['command', max.command],
      ] as const) {
        console.log(
          `https: stampede max sustained open-loop rate (${path}), ${CONNECTIONS} connections × pipelining ${pipelining}: ${rate} req/s = ${ratio(rate, ac.rps)} autocannon`,
        );
      }
    }
    const base = { url: target.url, seconds, connections: CONNECTIONS, pipelining: 1, ca: certs.ca };
    await saturatedPairs(
      'https: stampede pipelining 1',
      'autocannon',
      () => autocannon(target.url, ['-c', String(CONNECTIONS)], seconds, certs.ca).rps,
      base,
      Math.round(1.5 * ac.rps) || 100_000,
    );
  } finally {
    stop(target.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A port free on 127.0.0.1 now (for a server that cannot be told to pick one). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * nginx, one worker on the target core, TLS + http2 on 127.0.0.1:<free port>, answering "ok" from
 * its config (no file I/O, no access log). keepalive_requests is raised so that no client is sent
 * GOAWAY mid-run (nginx's default is 1,000 requests a connection).
 */
async function startNginx(dir: string, certs: { cert: string; key: string }): Promise<{ url: string; child: ChildProcess }> {
  if (!ensureCommand('nginx', 'nginx')) throw new Error('nginx is not installed');
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
  writeFileSync(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  keepalive_requests 100000000;
  server {
    listen 127.0.0.1:${port} ssl http2;
    ssl_certificate ${certs.cert};
    ssl_certificate_key ${certs.key};
    location / { return 200 "ok"; }
  }
}
`,
  );
  const [cmd, args] = pinned(TARGET_CORE, 'nginx', ['-c', conf, '-p', dir]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `https://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** HTTP/2 over TLS against nginx: h2load beside stampede (both paths) at 4 connections × 100 streams. */
async function h2Rows(seconds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'stampede-bench-h2-'));
  const certs = await makeCertificates(dir);
  const target = await startNginx(dir, certs);
  const shape = `${H2_CONNECTIONS} connections × ${H2_STREAMS} streams`;
  try {
    const peer = Math.max(h2load(target.url, H2_CONNECTIONS, H2_STREAMS, seconds), h2load(target.url, H2_CONNECTIONS, H2_STREAMS, seconds));
    console.log(`h2: h2load (closed loop, 1 thread, ${shape}, best of 2): ${Math.round(peer)} req/s`);
    const base = { url: target.url, seconds, connections: H2_CONNECTIONS, pipelining: H2_STREAMS, ca: certs.ca, http2: true };
    const max = await bothPaths('h2: stampede', base, peer * 2 || 100_000);
    for (const [path, rate] of [
      ['in-process', max.inProcess],
      ['command', max.command],
    ] as const) {
      console.log(`h2: stampede max sustained open-loop rate (${path}), ${shape}: ${rate} req/s = ${ratio(rate, peer)} h2load`);
    }
    await saturatedPairs('h2: stampede', 'h2load', () => h2load(target.url, H2_CONNECTIONS, H2_STREAMS, seconds), base, Math.round(1.5 * peer) || 100_000);
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
    const t = runTrial({ url: stall.url, rate: 1000, seconds: 10, connections: 16, pipelining: 16 });
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
else if (mode === 'trial') {
  const [url, rate, seconds, connections, pipelining, ca, protocol] = rest;
  await trial({
    url: url!,
    rate: Number(rate),
    seconds: Number(seconds),
    connections: Number(connections),
    pipelining: Number(pipelining),
    ca: ca && ca !== '-' ? ca : undefined,
    http2: protocol === 'h2',
  });
} else await main();
