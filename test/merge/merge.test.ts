import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeRuns, SegmentMergeError } from '../../src/merge/index.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { decodeFromCompressedBase64, HistogramLogReader } from '../../src/recorder/histograms.ts';
import type { IntervalResult } from '../../src/recorder/interval-digest.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { readIntervalLog } from '../../src/run-folder/index.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { makeProfile } from '../helpers/profile.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-merge-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const profile = makeProfile({
  name: 'merge-model',
  seed: 11,
  warmup: '500ms',
  phases: [
    { type: 'ramp', from: 1000, to: 3000, duration: '1s' },
    { type: 'steady', rate: 3000, duration: '2s' },
  ],
  mix: [
    { kind: 'get', weight: 3 },
    { kind: 'set', weight: 1 },
  ],
  slo: { latency: [{ percentile: 99, max: '50ms' }] },
} as never);

async function intervalsOf(dir: string): Promise<IntervalResult[]> {
  const out: IntervalResult[] = [];
  for await (const i of readIntervalLog(dir)) out.push(i);
  return out;
}

/** Counts per tag over the whole latency.hlog, read by hdr-histogram-js's own log reader. */
function logTotals(dir: string): Record<string, number> {
  const reader = new HistogramLogReader(readFileSync(join(dir, 'latency.hlog'), 'utf8'));
  const totals: Record<string, number> = {};
  for (let h = reader.nextIntervalHistogram(); h; h = reader.nextIntervalHistogram()) totals[h.tag] = (totals[h.tag] ?? 0) + h.totalCount;
  return totals;
}

const counts = (r: RunResult) => ({
  requests: r.requests,
  errors: r.errors,
  latency: decodeFromCompressedBase64(r.histograms.latency).totalCount,
  serviceTime: decodeFromCompressedBase64(r.histograms.serviceTime).totalCount,
  byKind: Object.fromEntries(Object.entries(r.byKind).map(([k, b]) => [k, [b.requests, decodeFromCompressedBase64(b.histogram).totalCount]])),
});

describe('stampede merge on the model', () => {
  const segmentDirs = [0, 1, 2].map((i) => join(scratch, `segment-${i}`));
  let whole: RunResult;
  let merged: Awaited<ReturnType<typeof mergeRuns>>;

  it('merges three segments into what one unsplit run counts, count for count', async () => {
    whole = (await runProfile(profile, { outDir: join(scratch, 'whole'), reports: false })).result;
    for (const [index, dir] of segmentDirs.entries()) {
      const { result } = await runProfile(profile, { outDir: dir, reports: false, segment: { index, count: 3 } });
      expect(result.segment).toEqual({ index, count: 3 });
      expect(result.requests.expected).toBe(Math.round(whole.requests.expected / 3));
    }
    merged = await mergeRuns(segmentDirs, { outDir: join(scratch, 'merged'), reports: false });
    expect(counts(merged.result)).toEqual(counts(whole));
    expect(merged.result.merged?.segments.map((s) => `${s.index}/${s.count}`)).toEqual(['0/3', '1/3', '2/3']);
    expect(merged.result.segment).toBeUndefined();
    // Per interval: the same requests sent in each, and every completion of the run in one of them.
    const mergedIntervals = await intervalsOf(merged.dir);
    const wholeIntervals = await intervalsOf(join(scratch, 'whole'));
    expect(mergedIntervals.map((i) => [i.tMs, i.warmup, i.sent])).toEqual(wholeIntervals.map((i) => [i.tMs, i.warmup, i.sent]));
    const completions = (list: IntervalResult[]) => list.reduce((a, i) => a + i.ok + i.failed, 0);
    expect(completions(mergedIntervals)).toBe(completions(wholeIntervals));
    // The merged log: one log, its untagged lines the measured requests, each kind's tag its slice, the warm-up apart.
    expect(logTotals(merged.dir)).toEqual(logTotals(join(scratch, 'whole')));
    expect(logTotals(merged.dir)).toEqual({
      'NO TAG': merged.result.latencyUs.count,
      'kind:get': merged.result.byKind.get!.requests,
      'kind:set': merged.result.byKind.set!.requests,
      warmup: merged.result.requests.warmup,
    });
  });

  it('judges the merged run as one run: the SLO from the added histograms, percentiles of the whole', async () => {
    expect(merged.analysis.verdict).toBe('PASS');
    const added = decodeFromCompressedBase64(readSegment(segmentDirs[0]!).histograms.latency);
    for (const dir of segmentDirs.slice(1)) added.add(decodeFromCompressedBase64(readSegment(dir).histograms.latency));
    expect(merged.result.latencyUs.p99).toBe(added.getValueAtPercentile(99));
    expect(merged.result.latencyUs.p999).toBe(added.getValueAtPercentile(99.9));
    expect(JSON.parse(readFileSync(join(merged.dir, 'analysis.json'), 'utf8')).verdict).toBe('PASS');
    expect(merged.summary).toContain('Merged from 3 segments');
  });

  it('refuses folders that are not every segment of one run, once', async () => {
    const other = join(scratch, 'other-seed');
    await runProfile({ ...profile, seed: 12 }, { outDir: other, reports: false, segment: { index: 2, count: 3 } });
    const refused = (dirs: string[]) => mergeRuns(dirs, { outDir: join(scratch, 'refused') });
    await expect(refused([segmentDirs[0]!, segmentDirs[1]!, other])).rejects.toThrow(/differ in seed/);
    await expect(refused([segmentDirs[0]!, segmentDirs[1]!])).rejects.toThrow(/segment 2\/3 missing/);
    await expect(refused([segmentDirs[0]!, segmentDirs[1]!, segmentDirs[1]!, segmentDirs[2]!])).rejects.toThrow(/segment 1\/3 given twice/);
    await expect(refused([segmentDirs[0]!, join(scratch, 'whole')])).rejects.toThrow(SegmentMergeError);
    await expect(refused([segmentDirs[0]!, join(scratch, 'whole')])).rejects.toThrow(/not a segment/);
    await expect(mergeRuns(segmentDirs, { outDir: segmentDirs[1]! })).rejects.toThrow(/is segment 1\/3's own folder/);
  });
});

describe('stampede merge of a run with a timeline', () => {
  it('keeps the timeline the segments played, and judges the recovery from it as one run does', async () => {
    const failover = await loadProfile('profiles/failover-memcached.yaml');
    const whole = await runProfile(failover, { outDir: join(scratch, 'failover-whole'), reports: false });
    const dirs = [0, 1, 2].map((i) => join(scratch, `failover-${i}`));
    for (const [index, dir] of dirs.entries()) await runProfile(failover, { outDir: dir, reports: false, segment: { index, count: 3 } });
    const merged = await mergeRuns(dirs, { outDir: join(scratch, 'failover-merged'), reports: false });
    const steps = (r: RunResult) => (r.timeline ?? []).map((s) => [s.type, s.plannedMs, s.status]);
    expect(steps(merged.result)).toEqual(steps(whole.result));
    expect(steps(merged.result).length).toBeGreaterThan(0);
    expect(merged.analysis.timeline?.events.length).toBeGreaterThan(0);
    expect(merged.analysis.timeline?.events.map((e) => [e.type, e.atMs])).toEqual(whole.analysis.timeline?.events.map((e) => [e.type, e.atMs]));
  });
});

describe('stampede merge of a run on a production key sample', () => {
  it('writes the sample as its segments recorded it (profile.json holds its summary, not its keys)', async () => {
    const keyed = await loadProfile('profiles/production-keys.yaml', ['phases[0].rate=1000', 'phases[0].duration=2s', 'warmup=0s']);
    const dirs = [0, 1].map((i) => join(scratch, `keys-${i}`));
    for (const [index, dir] of dirs.entries()) await runProfile(keyed, { outDir: dir, reports: false, segment: { index, count: 2 } });
    const merged = await mergeRuns(dirs, { outDir: join(scratch, 'keys-merged'), reports: false });
    expect(merged.result.requests.sent).toBe(dirs.map(readSegment).reduce((sum, r) => sum + r.requests.sent, 0));
    const sampleOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'profile.json'), 'utf8')).keys.sample;
    expect(sampleOf(merged.dir)).toEqual(sampleOf(dirs[0]!));
    expect(sampleOf(merged.dir)).toMatchObject({ count: 400, weighted: true });
  });
});

function readSegment(dir: string): RunResult {
  return JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
}
