/**
 * Model-core benchmark: simulated events and simulated requests per wall-clock second for the M/M/c
 * profile and the Bluesky 20k-batch profile, with the pending-event high-water mark. Peers measured
 * in the same run: the bare event heap (hold model at the same pending size) as the ceiling, and
 * the same model run with the real HDR recorder as what `stampede run` sees.
 *
 * With --queueing, instead: 1-hour runs near saturation (M/M/4 and M/D/1 at ρ = 0.9, 0.95, 0.99)
 * through the installed command, as a user runs it (`node bin/stampede.js run …`, after `npm run
 * build`), each against queueing theory (Erlang C; Pollaczek–Khinchine) with its wall time.
 *
 *   node --import tsx bench/model.ts [--queueing]       (npm run bench:model [-- --queueing])
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createModelDriver } from '../src/driver/model.ts';
import { EventHeap } from '../src/model/engine/event-heap.ts';
import { loadProfile, parseProfileText } from '../src/profile/load.ts';
import type { Profile } from '../src/profile/types.ts';
import { RunRecorder } from '../src/recorder/run-recorder.ts';
import type { Recorder } from '../src/recorder/types.ts';
import { Rng } from '../src/schedule/rng.ts';
import { createSchedule } from '../src/schedule/index.ts';
import { mmc } from '../test/model/support/erlang-c.ts';
import { mg1MeanWait } from '../test/model/support/pollaczek-khinchine.ts';

const ROUNDS = 3;

/** Counts and nothing else, so the figures are the model's (plus the schedule it pulls). */
class CountingRecorder implements Recorder {
  completed = 0;
  reason(): number {
    return 1;
  }
  sent(): void {}
  complete(): void {
    this.completed++;
  }
  dropped(): void {}
  advanceTo(): void {}
  setGaugeSource(): void {}
}

interface Measured {
  wallMs: number;
  events: number;
  requests: number;
  pendingHighWater: number;
  virtualS: number;
}

async function measure(profile: Profile, recorderKind: 'counting' | 'hdr'): Promise<Measured> {
  const schedule = createSchedule(profile);
  const recorder = recorderKind === 'counting' ? new CountingRecorder() : new RunRecorder(schedule.plan);
  const started = performance.now();
  const report = await createModelDriver().run({ profile, schedule, recorder, signal: new AbortController().signal });
  const wallMs = performance.now() - started;
  const d = report.model!;
  return { wallMs, events: d.events, requests: d.requests.started, pendingHighWater: d.pendingEventsHighWater, virtualS: report.elapsedUs / 1e6 };
}

/** The bare heap: pop one, push one at a random later time, with `pending` events held. */
function heapHoldRate(pending: number, operations: number): number {
  const heap = new EventHeap();
  const rng = new Rng(1);
  for (let i = 0; i < pending; i++) heap.push(Math.floor(rng.next() * 1e6), 0, 0, i);
  const started = performance.now();
  for (let i = 0; i < operations; i++) {
    heap.pop();
    heap.push(heap.topTime + Math.floor(rng.next() * 1e6), 0, 0, 0);
  }
  return operations / ((performance.now() - started) / 1000);
}

const fmt = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} k` : n.toFixed(0));

async function bench(label: string, profile: Profile): Promise<void> {
  const best = async (kind: 'counting' | 'hdr') => {
    let top: Measured | undefined;
    for (let r = 0; r < ROUNDS; r++) {
      const m = await measure(profile, kind);
      if (!top || m.wallMs < top.wallMs) top = m;
    }
    return top!;
  };
  const m = await best('counting');
  const withHdr = await best('hdr');
  const evRate = m.events / (m.wallMs / 1000);
  const heapRate = heapHoldRate(Math.max(16, m.pendingHighWater), 2_000_000);
  console.log(`\n${label}`);
  console.log(`  ${fmt(m.requests)} requests, ${fmt(m.events)} events, ${m.virtualS.toFixed(0)} s virtual, best of ${ROUNDS}: ${m.wallMs.toFixed(0)} ms wall`);
  console.log(`  events/s:            ${fmt(evRate)}`);
  console.log(`  requests/s:          ${fmt(m.requests / (m.wallMs / 1000))}   (virtual/wall speed-up ${(m.virtualS / (m.wallMs / 1000)).toFixed(0)}×)`);
  console.log(`  pending high-water:  ${m.pendingHighWater}`);
  console.log(`  peer, bare heap hold model at ${Math.max(16, m.pendingHighWater)} pending: ${fmt(heapRate)} ev/s (model = ${((evRate / heapRate) * 100).toFixed(0)}% of it)`);
  console.log(`  peer, with the HDR run recorder: ${fmt(withHdr.events / (withHdr.wallMs / 1000))} ev/s, ${fmt(withHdr.requests / (withHdr.wallMs / 1000))} req/s`);
}

const SERVICE_MEAN_US = 1000;
const QUEUEING_HOURS = 1;
const TIME = '/usr/bin/time';

interface QueueingCase {
  label: string;
  rho: number;
  workers: number;
  service: 'exponential' | 'fixed';
}

/** What theory says of a case, µs: response-time percentiles (Erlang C only) and the mean wait in queue. */
interface Theory {
  p50?: number;
  p99?: number;
  meanWait: number;
}

function theory(q: QueueingCase): Theory {
  const lambda = (q.rho * q.workers) / SERVICE_MEAN_US;
  if (q.service === 'exponential') {
    const t = mmc(lambda, 1 / SERVICE_MEAN_US, q.workers);
    return { p50: t.responsePercentile(50), p99: t.responsePercentile(99), meanWait: t.meanWait };
  }
  // A fixed service time has E[S²] = E[S]².
  return { meanWait: mg1MeanWait(lambda, SERVICE_MEAN_US, SERVICE_MEAN_US ** 2) };
}

function queueingProfile(q: QueueingCase): string {
  const rate = (q.rho * q.workers * 1e6) / SERVICE_MEAN_US;
  const service = q.service === 'exponential' ? `{ type: exponential, mean: ${SERVICE_MEAN_US}us }` : `{ type: fixed, value: ${SERVICE_MEAN_US}us }`;
  return `name: queueing\nseed: 1\narrivals: poisson\nphases: [{ type: steady, rate: ${rate}, duration: ${QUEUEING_HOURS * 3600}s }]\ntopology:\n  entry: q\n  services:\n    q: { workers: ${q.workers}, serviceTime: ${service} }\n`;
}

/** One case through the installed command; the model's figures read back from its result.json. */
function runQueueingCase(q: QueueingCase, bin: string, scratch: string): void {
  const dir = join(scratch, `${q.label.replaceAll('/', '')}-${q.rho}`);
  const file = `${dir}.yaml`;
  writeFileSync(file, queueingProfile(q));
  // /usr/bin/time reports the command's own CPU: on a shared machine its wall time is mostly waiting.
  const timed = existsSync(TIME) ? [TIME, '-f', 'cpu %U %S'] : [];
  const command = [...timed, process.execPath, bin, 'run', file, '--out', dir];
  const started = performance.now();
  const run = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
  const wallS = (performance.now() - started) / 1000;
  if (run.error || run.status === null || run.status > 1) throw new Error(`${q.label} ρ = ${q.rho}: exit ${run.status}: ${run.stderr}`);
  const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(run.stderr);
  const cpuS = cpu ? ` (CPU ${(Number(cpu[1]) + Number(cpu[2])).toFixed(1)} s)` : '';
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
  const latency = result.latencyUs as { count: number; p50: number; p99: number };
  const meanWait = result.driver.model.services.q.meanQueueWaitUs as number;
  const t = theory(q);
  const against = (model: number, truth: number | undefined) =>
    truth === undefined
      ? `${(model / 1000).toFixed(2).padStart(7)} ms (–)       `
      : `${(model / 1000).toFixed(2).padStart(7)} ms (${((model / truth - 1) * 100).toFixed(2).padStart(6)}%)`;
  console.log(
    `  ${q.label} ρ = ${q.rho.toFixed(2)}  ${fmt(latency.count).padStart(8)} req  p50 ${against(latency.p50, t.p50)}  p99 ${against(latency.p99, t.p99)}  mean wait ${against(meanWait, t.meanWait)}  wall ${wallS.toFixed(1)} s${cpuS}`,
  );
}

async function queueingBench(): Promise<void> {
  const root = join(import.meta.dirname, '..');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
  const scratch = mkdtempSync(join(tmpdir(), 'stampede-queueing-'));
  console.log(`stampede model benchmark, queueing near saturation — node ${process.version}, ${process.arch}`);
  console.log(`${QUEUEING_HOURS} h of virtual time each, service mean ${SERVICE_MEAN_US / 1000} ms, seed 1, through \`node bin/stampede.js run\`;`);
  console.log('model figure (its error against Erlang C for M/M/4, Pollaczek–Khinchine for M/D/1; – : no closed form used):');
  try {
    for (const rho of [0.9, 0.95, 0.99]) {
      for (const q of [
        { label: 'M/M/4', rho, workers: 4, service: 'exponential' },
        { label: 'M/D/1', rho, workers: 1, service: 'fixed' },
      ] as const) {
        runQueueingCase(q, join(root, 'bin/stampede.js'), scratch);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The event rates of the model, its peers and every shipped profile. */
async function throughputBench(): Promise<void> {
  const profiles = join(import.meta.dirname, '../profiles');
  console.log(`stampede model benchmark — node ${process.version}, ${process.arch}`);
  await bench('M/M/16 at ρ = 0.8 (profiles/mmc.yaml, 300 s)', await loadProfile(join(profiles, 'mmc.yaml'), ['phases[0].duration=300s']));
  await bench('Bluesky 20k-URI batch (profiles/bluesky-20k-batch.yaml)', await loadProfile(join(profiles, 'bluesky-20k-batch.yaml')));
  await bench('Bluesky OOM spiral (profiles/bluesky-oom-spiral.yaml)', await loadProfile(join(profiles, 'bluesky-oom-spiral.yaml')));
  await bench('Black Friday (profiles/black-friday.yaml, 240 s)', await loadProfile(join(profiles, 'black-friday.yaml')));

  // Pending-event scaling: an infinite-server service (every request in service at once) holds
  // rate × service time events pending — 10⁴, 10⁵ and 10⁶ — with the whole model around them.
  for (const [label, rate, service, duration] of [
    ['10⁴ pending: M/M/∞, 10,000/s × 1 s', 10_000, '1s', '30s'],
    ['10⁵ pending: M/M/∞, 50,000/s × 2 s', 50_000, '2s', '10s'],
    ['10⁶ pending: M/M/∞, 100,000/s × 10 s', 100_000, '10s', '12s'],
  ] as const) {
    await bench(
      label,
      await parseProfileText(
        // 10⁶ pending is the point of the last row, not a system diverging: the state limit is raised past it.
        `name: pending\nphases: [{ type: steady, rate: ${rate}, duration: ${duration} }]\nlimits: { maxModelState: 5000000 }\ntopology:\n  entry: api\n  services:\n    api: { workers: inf, serviceTime: { type: exponential, mean: ${service} } }\n`,
        'pending.yaml',
      ),
    );
  }

  // Every shipped profile once, end to end on the model (the budget: each under 60 s).
  console.log('\nshipped profiles, one run each (wall time of the model run):');
  for (const file of readdirSync(profiles)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    const profile = await loadProfile(join(profiles, file));
    // A profile for a real target only (no topology) has nothing to run on the model.
    if (profile.topology === undefined) continue;
    const m = await measure(profile, 'counting');
    console.log(
      `  ${file.padEnd(42)} ${(m.wallMs / 1000).toFixed(1).padStart(5)} s   ${fmt(m.events)} events, ${fmt(m.events / (m.wallMs / 1000))} ev/s, pending high-water ${m.pendingHighWater}`,
    );
  }
}

await (process.argv.includes('--queueing') ? queueingBench() : throughputBench());
