import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/analysis/compare.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { loadSnapshot } from '../../src/run-folder/snapshot.ts';
import { stampede } from '../helpers/cli.ts';
import { startMemcached, type RunningMemcached } from '../helpers/memcached.ts';
import { makeProfile } from '../helpers/profile.ts';
import { startHttpTarget } from '../helpers/targets.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-timeline-'));
let servers: RunningMemcached[] = [];
beforeAll(async () => {
  servers = await Promise.all([startMemcached(), startMemcached(), startMemcached(), startMemcached()]);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

const target = () => `memcached://${servers.map((s) => s.address).join(',')}`;

/** The model side of a profile whose timeline names a cache of four shards. */
const CACHE_TOPOLOGY = {
  entry: 'api',
  services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: '1ms' }, calls: [{ to: 'cache', via: 'api-to-cache' }] } },
  clientGroups: { 'api-to-cache': { instances: 1 } },
  caches: { cache: { shards: 4, hash: 'murmur3', placement: 'ketama', workers: 4, serviceTime: { type: 'exponential', mean: '100us' } } },
};

/**
 * 2,000 ops/s over 200 keys, a fifth of them sets: the 2 s warm-up fills the cache, the server
 * that leaves at 3 s takes its keys' values with it, and the sets refill them on the other three.
 * murmur3 spreads the keys over all four servers (FNV1-32 may leave one nearly empty: 2018-04).
 * Loose latency SLO: a busy machine's scheduling must not decide the recovery.
 */
function failoverProfile(name: string, timeline: unknown[]) {
  return makeProfile({
    name,
    warmup: '2s',
    arrivals: 'constant',
    phases: [{ type: 'steady', rate: 2000, duration: '5s' }],
    keys: { count: 200, prefix: 'user:' },
    mix: [
      { kind: 'get', weight: 4 },
      { kind: 'set', weight: 1 },
    ],
    slo: { latency: [{ percentile: 99, max: '2s' }], errorRate: 0.05 },
    memcached: { hash: 'murmur3', distribution: 'ketama' },
    topology: { ...CACHE_TOPOLOGY, timeline },
  } as never);
}

describe('timeline on real memcached (four servers on 127.0.0.1)', () => {
  it('a server leaving the ring gets no more keys, the hit ratio dips after it, and the time to recover is computed and bounded', async () => {
    const profile = failoverProfile('mc-remove', [{ type: 'removeShards', at: '3s', cache: 'cache', count: 1 }]);
    const outDir = join(scratch, 'remove');
    const { result, analysis, summary } = await runProfile(profile, { target: target(), outDir, intervalUs: 500_000 });
    const step = result.timeline?.[0];
    expect(step).toMatchObject({ index: 0, type: 'removeShards', plannedMs: 3000, status: 'applied' });
    expect(step?.label).toContain(`${servers[3]!.address} leaves the ring`);
    expect(step!.actualMs!).toBeGreaterThanOrEqual(3000);
    const series = result.intervals.series;
    // The removed server (shard 3) gets keys before and none from the interval after the removal on.
    expect(series.filter((p) => p.tMs + 500 <= 3000).some((p) => (p.gauges['shardKeys.shard3'] ?? 0) > 0)).toBe(true);
    const afterRemoval = series.filter((p) => p.tMs > step!.actualMs!);
    expect(afterRemoval.length).toBeGreaterThan(0);
    expect(afterRemoval.every((p) => (p.gauges['shardKeys.shard3'] ?? 0) === 0)).toBe(true);
    const before = series.filter((p) => !p.warmup && p.tMs + 500 <= 3000).map((p) => p.gauges['hitRatio.memcached']!);
    const dip = Math.min(...series.filter((p) => p.tMs + 500 > step!.actualMs! && p.tMs < step!.actualMs! + 1000).map((p) => p.gauges['hitRatio.memcached']!));
    expect(Math.min(...before)).toBeGreaterThan(0.9);
    expect(dip).toBeLessThan(Math.min(...before) - 0.05);
    const recovery = analysis.timeline?.events[0];
    expect(recovery?.breached).toContain('hitRatio.memcached');
    // Bounded: the sets refill the moved keys well before the run ends, and the figure says so.
    expect(recovery?.recoveryMs).not.toBeNull();
    expect(recovery!.recoveryMs!).toBeGreaterThan(0);
    expect(recovery!.recoveryMs!).toBeLessThanOrEqual(result.warmupMs + result.durationMs - recovery!.atMs);
    expect(analysis.timeline?.parts.before?.hitRatio['hitRatio.memcached']).toBeGreaterThan(analysis.timeline!.parts.during!.hitRatio['hitRatio.memcached']!);
    expect(summary).toContain('## Timeline');
    expect(summary).toMatch(/\| before \|/);
    const report = readFileSync(join(outDir, 'report.md'), 'utf8');
    expect(report).toContain(`◆ removeShards: ${servers[3]!.address} leaves the ring`);
    // compare: the same run against itself is the same recovery; a candidate that never recovered regressed.
    // On a busy machine the run itself may be INVALID (the generator was the limit), which compare rightly
    // refuses to judge; the recovery rows are what this checks, so the snapshot is taken as evidence here.
    const snapshot = { ...loadSnapshot(outDir), notComparable: [] };
    expect(snapshot.recovery?.events).toHaveLength(1);
    expect(compareRuns(snapshot, snapshot).rows.find((r) => r.metric.startsWith('recovery'))?.change).toBe('same');
    const stuck = { ...snapshot, recovery: { ...snapshot.recovery!, events: [{ ...snapshot.recovery!.events[0]!, recoveryMs: null }] } };
    const comparison = compareRuns(snapshot, stuck);
    expect(comparison.rows.find((r) => r.metric.startsWith('recovery'))).toMatchObject({ candidate: 'did not recover', change: 'regressed' });
    expect(comparison.regressed).toBe(true);
  });

  it('addShards brings the target’s last server into the ring; restoreShards puts a removed one back', async () => {
    const profile = failoverProfile('mc-add', [
      { type: 'addShards', at: '3s', cache: 'cache', count: 1 },
      { type: 'removeShards', at: '4s', cache: 'cache', count: 1 },
      { type: 'restoreShards', at: '5s', cache: 'cache' },
    ]);
    const { result } = await runProfile(profile, { target: target(), outDir: join(scratch, 'add'), intervalUs: 500_000 });
    expect(result.timeline?.map((s) => s.label)).toEqual([
      `addShards: ${servers[3]!.address} joins the ring (4 in it)`,
      `removeShards: ${servers[3]!.address} leaves the ring (3 in it)`,
      `restoreShards: ${servers[3]!.address} rejoins the ring (4 in it)`,
    ]);
    const shard3 = (fromMs: number, toMs: number) =>
      result.intervals.series.filter((p) => p.tMs >= fromMs && p.tMs + 500 <= toMs).reduce((n, p) => n + (p.gauges['shardKeys.shard3'] ?? 0), 0);
    // Whole intervals between two steps: from the first interval starting after one to the last ending before the next.
    const [added, removed, restored] = result.timeline!.map((s) => s.actualMs!);
    const intervalAfter = (ms: number) => Math.ceil(ms / 500) * 500;
    const intervalBefore = (ms: number) => Math.floor(ms / 500) * 500;
    expect(shard3(0, intervalBefore(added!))).toBe(0);
    expect(shard3(intervalAfter(added!), intervalBefore(removed!))).toBeGreaterThan(0);
    expect(shard3(intervalAfter(removed!), intervalBefore(restored!))).toBe(0);
    expect(shard3(intervalAfter(restored!), 7000)).toBeGreaterThan(0);
  });

  it('the same timeline runs on the model, each step at its planned time', async () => {
    const profile = failoverProfile('mc-model', [
      { type: 'removeShards', at: '3s', cache: 'cache', count: 2, every: '1s' },
      { type: 'exec', at: '4s', command: ['false'] },
    ]);
    const { result } = await runProfile(profile, { outDir: join(scratch, 'model') });
    expect(result.timeline?.map((s) => [s.type, s.plannedMs, s.actualMs, s.status])).toEqual([
      ['removeShards', 3000, 3000, 'applied'],
      ['removeShards', 4000, 4000, 'applied'],
      ['exec', 4000, null, 'skipped'],
    ]);
  });
});

describe('exec and refusals', () => {
  it('an exec event runs its command once, at its time, and records exit code, duration and output', async () => {
    const http = await startHttpTarget((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    try {
      const stamp = join(scratch, 'stamp.txt');
      const script = `require('node:fs').appendFileSync(${JSON.stringify(stamp)}, Date.now() + '\\n'); console.log('failover done')`;
      const profile = makeProfile({
        name: 'exec-once',
        arrivals: 'constant',
        phases: [{ type: 'steady', rate: 200, duration: '3s' }],
        topology: {
          entry: 'api',
          services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: '1ms' } } },
          timeline: [{ type: 'exec', at: '1s', command: [process.execPath, '-e', script], timeout: '20s' }],
        },
      } as never);
      const startedAt = Date.now();
      const { result } = await runProfile(profile, { target: http.url, outDir: join(scratch, 'exec'), allowExec: true });
      const lines = readFileSync(stamp, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(Number(lines[0])).toBeGreaterThanOrEqual(startedAt + 1000);
      const step = result.timeline?.[0];
      expect(step).toMatchObject({ type: 'exec', plannedMs: 1000, status: 'applied' });
      expect(step!.actualMs!).toBeGreaterThanOrEqual(1000);
      expect(step?.exec).toMatchObject({ argv: [process.execPath, '-e', script], exitCode: 0, timedOut: false });
      expect(step?.exec?.outputTail).toContain('failover done');
      expect(step!.exec!.durationMs).toBeGreaterThan(0);
    } finally {
      await http.close();
    }
  });

  it('a command past its timeout is killed and recorded as timed out', async () => {
    const http = await startHttpTarget((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    try {
      const profile = makeProfile({
        name: 'exec-timeout',
        arrivals: 'constant',
        phases: [{ type: 'steady', rate: 100, duration: '2s' }],
        topology: {
          entry: 'api',
          services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: '1ms' } } },
          timeline: [{ type: 'exec', at: '0.5s', command: [process.execPath, '-e', 'setTimeout(() => {}, 60000)'], timeout: '300ms' }],
        },
      } as never);
      const { result } = await runProfile(profile, { target: http.url, outDir: join(scratch, 'exec-timeout'), allowExec: true });
      expect(result.timeline?.[0]?.exec).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: true });
    } finally {
      await http.close();
    }
  });

  const profileFile = (name: string, timeline: string) => {
    const file = join(scratch, `${name}.yaml`);
    writeFileSync(
      file,
      `name: ${name}\nphases: [{ type: steady, rate: 10, duration: 1s }]\ntopology:\n  entry: api\n  services: { api: { workers: 1, serviceTime: { type: fixed, value: 1ms } } }\n  caches: { cache: { shards: 4 } }\n  timeline:\n${timeline}`,
    );
    return file;
  };

  it('without --allow-exec a profile with an exec event is refused with exit 2 naming it, before any traffic', () => {
    const file = profileFile('needs-allow', '    - { type: exec, at: 2s, command: [touch, /tmp/never] }\n');
    const out = join(scratch, 'refused');
    const run = stampede(['run', file, '--target', 'http://127.0.0.1:9', '--out', out]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('timeline[0] (exec at 2s)');
    expect(run.stderr).toContain('--allow-exec');
  });

  it('a model-only event on a real target is refused with exit 2; with --allow-exec the exec is printed before the run', () => {
    const latency = profileFile('model-only', '    - { type: latency, at: 1s, until: 2s, service: api, add: 5ms }\n');
    const refused = stampede(['run', latency, '--target', target(), '--out', join(scratch, 'model-only')]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('timeline[0] (latency at 1s): this memcached:// target cannot apply a latency event');
    const listed = profileFile('listed', `    - { type: exec, at: 0.5s, command: [${JSON.stringify(process.execPath)}, -e, "0"] }\n`);
    const ran = stampede(['run', listed, '--target', target(), '--allow-exec', '--out', join(scratch, 'listed')]);
    expect(ran.stderr).toContain(`at 0.5s  exec ["${process.execPath}","-e","0"] (timeout 30s)`);
    expect(JSON.parse(readFileSync(join(scratch, 'listed', 'result.json'), 'utf8')).timeline[0].exec.exitCode).toBe(0);
  });
});
