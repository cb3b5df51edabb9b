import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Distribution } from '../../src/profile/distribution.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { createSchedule, emptyRequest } from '../../src/schedule/index.ts';
import { Model } from '../../src/model/model.ts';
import { serviceKind } from '../../src/model/components/service/kind.ts';
import { MEMCACHED_OPERATIONS } from '../../src/profile/protocols/memcached/section.ts';
import { layoutOf, traceFit } from '../../src/trace/index.ts';
import { type SyntheticTraceSpec, writeSyntheticTrace } from '../helpers/synthetic-trace.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-trace-fit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const LAYOUT = layoutOf({ delimiter: ',', unit: 's' });
const READ = { maxMalformedShare: 0 };

/** Ten minutes: 200 requests a second, 400 from minute 5; a viral key takes 20% of minutes 3–5. */
const SPEC: SyntheticTraceSpec = {
  seed: 23,
  requests: 180_000,
  ratePerS: 200,
  rateChanges: [{ fromS: 300, ratePerS: 400 }],
  keys: 30_000,
  zipfAlpha: 0.9,
  operations: { get: 0.75, set: 0.15, add: 0.04, delete: 0.04, incr: 0.02 },
  valueSizeMean: 500,
  ttls: [
    { ttlS: 60, weight: 3 },
    { ttlS: 86_400, weight: 1 },
  ],
  clients: [
    { id: 'timeline', weight: 7 },
    { id: 'search svc', weight: 3 },
  ],
  hot: { key: 'tweet:viral', fromS: 180, toS: 360, share: 0.2 },
};

/** The mean of a fitted empirical size distribution. */
function meanOf(d: Distribution | undefined): number {
  if (d?.type !== 'empirical') throw new Error(`expected an empirical distribution, got ${d?.type}`);
  const weight = d.values.reduce((sum, v) => sum + v.weight, 0);
  return d.values.reduce((sum, v) => sum + v.value * v.weight, 0) / weight;
}

/** The trace's own figures, the plain way: mean value size over all requests and over sets. */
function traceMeans(file: string): { all: number; set: number } {
  const rows = readFileSync(file, 'latin1')
    .trimEnd()
    .split('\n')
    .map((l) => l.split(','));
  const mean = (rs: string[][]) => rs.reduce((sum, r) => sum + Number(r[3]), 0) / rs.length;
  return { all: mean(rows), set: mean(rows.filter((r) => r[5] === 'set')) };
}

async function fitted(spec: SyntheticTraceSpec, name: string) {
  const file = join(scratch, `${name}.csv`);
  writeSyntheticTrace(file, spec);
  const fit = await traceFit(file, LAYOUT, READ, `${name}.keys.csv`);
  const out = join(scratch, `${name}.yaml`);
  writeFileSync(out, fit.yaml);
  if (fit.keysCsv !== undefined) writeFileSync(join(scratch, `${name}.keys.csv`), fit.keysCsv);
  return { file, fit, profile: await loadProfile(out) };
}

describe('trace fit: a profile that reproduces the trace it was fitted to', () => {
  it('fits back what the trace was made from: Zipf ±0.05, each operation’s share ±1 point, mean value size ±5%, clients, the rate curve', async () => {
    const { file, profile } = await fitted(SPEC, 'round-trip');
    expect(profile.keys.popularity.type).toBe('zipf');
    const s = (profile.keys.popularity as { s: number }).s;
    expect(Math.abs(s - SPEC.zipfAlpha), `fitted s ${s}`).toBeLessThanOrEqual(0.05);
    const totalWeight = profile.mix.reduce((sum, m) => sum + m.weight, 0);
    const specTotal = Object.values(SPEC.operations).reduce((a, b) => a + b, 0);
    for (const [operation, weight] of Object.entries(SPEC.operations)) {
      const entry = profile.mix.find((m) => m.kind === operation);
      expect(Math.abs(entry!.weight / totalWeight - weight / specTotal), operation).toBeLessThanOrEqual(0.01);
    }
    // Each key keeps its size in the trace, so its popularity weighs the mean: the truth is the trace's own mean.
    const means = traceMeans(file);
    expect(Math.abs(meanOf(profile.valueSize) / means.all - 1)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(meanOf(profile.mix.find((m) => m.kind === 'set')!.valueSize) / means.set - 1)).toBeLessThanOrEqual(0.05);
    expect(profile.mix.find((m) => m.kind === 'get')!.valueSize).toBeUndefined();
    // Every kind is named after its trace operation, which the memcached driver sends as it is.
    expect(profile.memcached.operations).toEqual({});
    // Each write kind sets the TTLs it set in the trace (3:1), in µs once loaded; reads set none.
    const setTtl = profile.mix.find((m) => m.kind === 'set')!.ttl;
    expect(setTtl?.type).toBe('empirical');
    const ttls = (setTtl as { values: { value: number; weight: number }[] }).values;
    expect(ttls.map((t) => t.value)).toEqual([60_000_000, 86_400_000_000]);
    expect(Math.abs(ttls[0]!.weight - 0.75)).toBeLessThan(0.03);
    expect(profile.mix.find((m) => m.kind === 'get')!.ttl).toBeUndefined();
    expect(profile.clients.map((c) => c.name)).toEqual(['client-timeline', 'client-search_svc']);
    expect(Math.abs(profile.clients[0]!.share! - 0.7)).toBeLessThan(0.01);
    // 200/s for 300 s, then 400/s for the rest (180,000 − 60,000 = 120,000 requests: 300 s).
    expect(profile.phases).toEqual([
      { type: 'steady', rate: 200, duration: 300_000_000 },
      { type: 'steady', rate: 400, duration: 300_000_000 },
    ]);
    expect(createSchedule(profile).plan.durationUs).toBe(600_000_000);
  });

  it('finds the viral key’s episode in the minutes it was hot, with its peak share', async () => {
    const { profile } = await fitted(SPEC, 'hot-episode');
    expect(profile.keys.hot).toHaveLength(1);
    const [episode] = profile.keys.hot;
    expect(episode!.key).toBe('tweet:viral');
    expect(episode!.start).toBe(180_000_000);
    expect(Math.abs(episode!.peak - 0.2)).toBeLessThan(0.02);
    // Hot for minutes 3, 4 and 5, then gone: a hold of up to the three minutes and a decay within the next.
    expect(episode!.rise + episode!.hold).toBeLessThanOrEqual(180_000_000);
  });

  it('a popularity no Zipf law describes (two flat tiers) becomes the trace’s own, as a weighted key file', async () => {
    // Half the requests on 20 keys, half over 20,000: a cliff, not a power law.
    const cliff = join(scratch, 'cliff.csv');
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) lines.push(`${Math.floor(i / 500)},${i % 2 === 0 ? `hot${i % 40}` : `cold${(i * 7919) % 20_000}`},6,100,1,get,0`);
    writeFileSync(cliff, `${lines.join('\n')}\n`);
    const fit = await traceFit(cliff, LAYOUT, READ, 'cliff.keys.csv');
    writeFileSync(join(scratch, 'cliff.yaml'), fit.yaml);
    writeFileSync(join(scratch, 'cliff.keys.csv'), fit.keysCsv!);
    const profile = await loadProfile(join(scratch, 'cliff.yaml'));
    expect(profile.keys.file).toBe('cliff.keys.csv');
    expect(fit.notes.join('\n')).toMatch(/popularity: the trace's own, \d+ keys carrying 100\.0% of requests \(Zipf [\d.]+ fits badly \(×[\d.]+\)\)/);
    expect(fit.keysCsv!.split('\n').slice(0, 2)).toEqual(['key,weight', expect.stringMatching(/^hot\d+,2500$/)]);
  });

  it('one-hit wonders: a trace whose requests go 20% to keys asked once is fitted back to keys.oneHitWonders 0.2 ± 2 points, beside its Zipf tail’s own singletons', async () => {
    const spec: SyntheticTraceSpec = { seed: 5, requests: 60_000, ratePerS: 200, keys: 8_000, zipfAlpha: 0.9, oneHitShare: 0.2, operations: { get: 1 }, valueSizeMean: 100 };
    const { profile, fit } = await fitted(spec, 'one-hit');
    expect(Math.abs(profile.keys.oneHitWonders! - 0.2)).toBeLessThan(0.02);
    expect(fit.notes.join('\n')).toMatch(/one-hit wonders: [\d.]+% of keys are asked for once/);
    // The round trip: the fitted profile's own schedule sends that share of its requests to keys never seen again.
    const schedule = createSchedule({ ...profile, warmup: 0 });
    const request = emptyRequest();
    const counts = new Map<number, number>();
    let sent = 0;
    while (schedule.next(request) && sent < 40_000) {
      sent++;
      const key = request.keys[0]!;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const onceIds = [...counts.keys()].filter((k) => k >= profile.keys.count + profile.keys.hot.length);
    expect(onceIds.every((k) => counts.get(k) === 1)).toBe(true);
    expect(Math.abs(onceIds.length / sent - profile.keys.oneHitWonders!)).toBeLessThan(0.01);
  });

  it('the fitted topology sends each kind to the model’s cache as the operation it is named after', async () => {
    const spec: SyntheticTraceSpec = {
      seed: 8,
      requests: 20_000,
      ratePerS: 200,
      keys: 2_000,
      zipfAlpha: 1,
      operations: { get: 0.6, set: 0.2, add: 0.1, delete: 0.05, incr: 0.05 },
      valueSizeMean: 100,
      ttls: [{ ttlS: 60, weight: 1 }],
    };
    const { profile } = await fitted(spec, 'ops');
    const plan = createSchedule(profile).plan;
    const model = new Model(profile.topology!, plan, 1, { userCompleted: () => undefined });
    const [app] = model.parts.wiring.all(serviceKind);
    const ops = app!.config.calls[0]!.ops!;
    expect(plan.kinds.map((_kind, k) => MEMCACHED_OPERATIONS[ops[k]!])).toEqual(plan.kinds);
  });

  it('a trace without one-hit wonders beyond its Zipf tail’s gets none', async () => {
    const spec: SyntheticTraceSpec = { seed: 6, requests: 60_000, ratePerS: 200, keys: 8_000, zipfAlpha: 0.9, operations: { get: 1 }, valueSizeMean: 100 };
    const { profile } = await fitted(spec, 'no-one-hit');
    expect(profile.keys.oneHitWonders ?? 0).toBeLessThan(0.01);
  });
});
