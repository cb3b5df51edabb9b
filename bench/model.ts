/**
 * Model-core benchmark: simulated events and simulated requests per wall-clock second for the M/M/c
 * profile and the Bluesky 20k-batch profile, with the pending-event high-water mark. Peers measured
 * in the same run: the bare event heap (hold model at the same pending size) as the ceiling, and
 * the same model run with the real HDR recorder as what `stampede run` sees.
 *
 *   node --import tsx bench/model.ts        (npm run bench:model)
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createModelDriver } from '../src/driver/model.ts';
import { EventHeap } from '../src/model/engine/event-heap.ts';
import { loadProfile, parseProfileText } from '../src/profile/load.ts';
import type { Profile } from '../src/profile/types.ts';
import { RunRecorder } from '../src/recorder/run-recorder.ts';
import type { Recorder } from '../src/recorder/types.ts';
import { Rng } from '../src/schedule/rng.ts';
import { createSchedule } from '../src/schedule/index.ts';

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
