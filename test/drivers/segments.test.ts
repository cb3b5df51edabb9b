import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeFromCompressedBase64, newHistogram } from '../../src/recorder/histograms.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { stampedeAsync } from '../helpers/cli.ts';
import { startStallingTarget } from '../helpers/targets.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-segments-'));
afterAll(() => (process.env.KEEP ? undefined : rmSync(scratch, { recursive: true, force: true })));

const PROFILE = `name: segments-http
seed: 5
arrivals: constant
warmup: 500ms
phases:
  - { type: steady, rate: 1500, duration: 3s }
http: { connections: 64 }
slo:
  latency:
    - { percentile: 99, max: 1s }
topology:
  entry: api
  services:
    api: { workers: 8, serviceTime: { type: exponential, mean: 1ms } }
`;

/** Long enough for three CLI processes to start (tsx compiles on start) on a busy machine before the shared start. */
const START_IN_MS = 20_000;

const read = (dir: string) => JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;

describe('three hosts, one result: --segment and --start-at against a local HTTP target, then stampede merge', () => {
  it('three CLI processes merged count what one run counts, the histograms add exactly, and a stall shows in the merged p99', async () => {
    // The target stalls 100 ms in every 500 ms: a fifth of the requests wait, so the p99 is most of a stall.
    const target = await startStallingTarget(100, 500);
    try {
      const profile = join(scratch, 'profile.yaml');
      writeFileSync(profile, PROFILE);
      const startAt = new Date(Date.now() + START_IN_MS).toISOString();
      const segments = [0, 1, 2].map((i) => join(scratch, `segment-${i}`));
      const runs = await Promise.all(
        segments.map((out, i) => stampedeAsync(['run', profile, '--target', target.url, '--segment', `${i}/3`, '--start-at', startAt, '--out', out, '--quiet'])),
      );
      // Each run is judged (0 PASS; 1 when a busy machine made its generator the limit): never a bad input or a failed start.
      for (const run of runs) expect([0, 1], run.stderr).toContain(run.status);
      const whole = join(scratch, 'whole');
      const single = await stampedeAsync(['run', profile, '--target', target.url, '--out', whole, '--quiet']);
      expect([0, 1], single.stderr).toContain(single.status);
      const merge = await stampedeAsync(['merge', ...segments, '--out', join(scratch, 'merged')]);
      expect([0, 1], merge.stderr).toContain(merge.status);
      expect(merge.stdout).toContain('Merged from 3 segments');
      // Every segment's generator counts: the merged run's was the limit exactly when one of the segments' was.
      const saturated = (dir: string) => JSON.parse(readFileSync(join(dir, 'analysis.json'), 'utf8')).generator?.saturated === true;
      expect(saturated(join(scratch, 'merged'))).toBe(segments.some(saturated));
      expect(merge.stdout.includes('its generator was the limit')).toBe(segments.some(saturated));

      const merged = read(join(scratch, 'merged'));
      const one = read(whole);
      expect(segments.map((dir) => read(dir).segment)).toEqual([0, 1, 2].map((index) => ({ index, count: 3, startAt })));
      expect(merged.startedAt).toBe(startAt);
      // The same schedule, split: every request of the unsplit run sent once by one of the segments (in the
      // warm-up or after it: a late generator moves requests across that line), and every one answered.
      const everySent = (r: RunResult) => r.requests.sent + r.requests.warmup + r.requests.dropped;
      const answered = (r: RunResult) => r.intervals.series.reduce((a, i) => a + i.ok, 0);
      expect(everySent(merged)).toBe(everySent(one));
      expect(answered(merged)).toBe(answered(one));
      expect(merged.requests.expected).toBe(one.requests.expected);
      // Percentiles of the whole: the segments' histograms added, never their percentiles averaged.
      const added = newHistogram();
      for (const dir of segments) added.add(decodeFromCompressedBase64(read(dir).histograms.latency));
      expect(merged.latencyUs.count).toBe(added.totalCount);
      expect(merged.latencyUs.p99).toBe(added.getValueAtPercentile(99));
      expect(merged.latencyUs.p50).toBe(added.getValueAtPercentile(50));
      // The stall shows in the merged p99 as in the unsplit run's: well above what no stall would give.
      expect(merged.latencyUs.p99).toBeGreaterThan(50_000);
      expect(one.latencyUs.p99).toBeGreaterThan(50_000);
      expect(merged.merged?.segments.every((s) => s.generator !== undefined)).toBe(true);
      expect(merged.generator?.threads).toBe(3);
    } finally {
      await target.close();
    }
  }, 180_000);
});
