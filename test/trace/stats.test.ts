import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputFileError } from '../../src/files/input-file.ts';
import { layoutOf, traceStats } from '../../src/trace/index.ts';
import { type SyntheticTraceSpec, writeSyntheticTrace } from '../helpers/synthetic-trace.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-trace-stats-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DEFAULT = layoutOf({ delimiter: ',', unit: 's' });
const READ = { maxMalformedShare: 0.001 };

const SPEC: SyntheticTraceSpec = {
  seed: 11,
  requests: 60_000,
  ratePerS: 500,
  keys: 20_000,
  zipfAlpha: 1.2,
  oneHitShare: 0.04,
  operations: { get: 0.7, set: 0.2, add: 0.05, delete: 0.03, incr: 0.02 },
  valueSizeMean: 300,
  ttls: [
    { ttlS: 60, weight: 3 },
    { ttlS: 86_400, weight: 1 },
  ],
  clients: [
    { id: 'web', weight: 6 },
    { id: 'api', weight: 3 },
    { id: 'batch', weight: 1 },
  ],
};

/** The truth of a trace, computed the plain way: every line split, every key in a Map of its counts. */
function oracle(file: string) {
  const rows = readFileSync(file, 'latin1')
    .trimEnd()
    .split('\n')
    .map((line) => line.split(','));
  const keys = new Map<string, number>();
  const operations = new Map<string, number>();
  const lastValue = new Map<string, number>();
  let valueSum = 0;
  let withValue = 0;
  for (const [, key, , value, , operation] of rows) {
    keys.set(key!, (keys.get(key!) ?? 0) + 1);
    operations.set(operation!, (operations.get(operation!) ?? 0) + 1);
    if (Number(value) > 0) {
      valueSum += Number(value);
      withValue++;
      lastValue.set(key!, Number(value));
    }
  }
  const firstMinute = new Map<string, number>();
  for (const [timestamp, key] of rows) if (Number(timestamp) < 60) firstMinute.set(key!, (firstMinute.get(key!) ?? 0) + 1);
  const [hottest, hottestCount] = [...firstMinute].sort((a, b) => b[1] - a[1])[0]!;
  return {
    requests: rows.length,
    distinct: keys.size,
    once: [...keys.values()].filter((n) => n === 1).length,
    operations,
    valueMean: valueSum / withValue,
    workingSet: [...keys.keys()].reduce((sum, key) => sum + key.length + (lastValue.get(key) ?? 0), 0),
    firstMinute: { hottest, share: hottestCount / rows.filter(([t]) => Number(t) < 60).length },
  };
}

describe('trace stats: the published table’s statistics of a trace, in one streamed pass', () => {
  const file = join(scratch, 'synthetic.csv');
  writeSyntheticTrace(file, SPEC);
  const truth = oracle(file);

  it('counts what the trace holds, as a plain reading of every line does', async () => {
    const { read, stats } = await traceStats(file, DEFAULT, READ);
    expect(read).toMatchObject({ lines: SPEC.requests, requests: SPEC.requests, malformed: 0, compressed: false, headerSkipped: false, interrupted: false });
    expect(stats.requests).toBe(truth.requests);
    expect(stats.keys.distinct).toBe(truth.distinct);
    expect(stats.keys.oneHitWonderRatio).toBeCloseTo(truth.once / truth.distinct, 12);
    expect(stats.keys.meanFrequency).toBeCloseTo(truth.requests / truth.distinct, 9);
    expect(stats.keys.compulsoryMissRatio).toBeCloseTo(truth.distinct / truth.requests, 12);
    expect(stats.keys.workingSetBytes).toBe(truth.workingSet);
    expect(stats.values.sizeMean).toBeCloseTo(truth.valueMean, 6);
    for (const [operation, n] of truth.operations) expect(stats.operations[operation], operation).toBeCloseTo(n / truth.requests, 12);
    expect(stats.hotKeys[0]!.top[0]).toEqual({ key: truth.firstMinute.hottest, share: truth.firstMinute.share });
  });

  it('recovers the parameters the trace was made from: Zipf ±0.05, shares of operations, TTLs and clients, the rate', async () => {
    const { stats } = await traceStats(file, DEFAULT, READ);
    expect(stats.keys.zipf!.alpha).toBeGreaterThan(SPEC.zipfAlpha - 0.05);
    expect(stats.keys.zipf!.alpha).toBeLessThan(SPEC.zipfAlpha + 0.05);
    expect(stats.keys.zipf!.r2).toBeGreaterThan(0.98);
    const total = Object.values(SPEC.operations).reduce((a, b) => a + b, 0);
    for (const [operation, weight] of Object.entries(SPEC.operations)) expect(Math.abs(stats.operations[operation]! - weight / total), operation).toBeLessThan(0.01);
    expect(stats.ttls.map((t) => t.ttlS)).toEqual([60, 86_400]);
    expect(Math.abs(stats.ttls[0]!.share - 0.75)).toBeLessThan(0.02);
    expect(stats.clients.top.map((c) => c.client)).toEqual(['web', 'api', 'batch']);
    expect(Math.abs(stats.clients.top[0]!.share - 0.6)).toBeLessThan(0.02);
    // 60,000 requests at 500 a second: 120 whole seconds, 2 minutes.
    expect(stats.durationS).toBe(120);
    expect(stats.rate).toMatchObject({ meanPerS: 500, peakPerS: 500, lowestPerS: 500, perMinute: [500, 500] });
  });

  it('a uniform keyspace fits Zipf 0, and a steep one its exponent', async () => {
    for (const alpha of [0.0001, 0.8, 1.6]) {
      const path = join(scratch, `zipf-${alpha}.csv`);
      writeSyntheticTrace(path, { ...SPEC, zipfAlpha: alpha, oneHitShare: 0, keys: 2_000, requests: 200_000 });
      const { stats } = await traceStats(path, DEFAULT, READ);
      expect(Math.abs(stats.keys.zipf!.alpha - alpha), `alpha ${alpha}: fitted ${stats.keys.zipf!.alpha}`).toBeLessThan(0.05);
    }
  });

  it('other CSV layouts through the column mapping: by header names, by position, another delimiter and time unit give the same statistics', async () => {
    const base = await traceStats(file, DEFAULT, READ);
    const rows = readFileSync(file, 'latin1')
      .trimEnd()
      .split('\n')
      .map((l) => l.split(','));
    // op;ms;key;value: reordered, milliseconds, semicolons, no key size, client or TTL columns.
    const reordered = rows.map(([t, key, , value, , op]) => `${op};${Number(t) * 1000 + 250};${key};${value}`);
    const headered = join(scratch, 'headered.csv');
    writeFileSync(headered, `operation;when;id;bytes\n${reordered.join('\n')}\n`);
    const byName = await traceStats(headered, layoutOf({ columns: 'timestamp=when,key=id,operation=operation,valueSize=bytes', delimiter: ';', unit: 'ms' }), READ);
    const positional = join(scratch, 'positional.csv');
    writeFileSync(positional, `${reordered.join('\r\n')}\r\n`);
    const byPosition = await traceStats(positional, layoutOf({ columns: 'timestamp=2,key=3,operation=1,valueSize=4', delimiter: ';', unit: 'ms' }), READ);
    expect(byName.read.headerSkipped).toBe(true);
    for (const { stats } of [byName, byPosition]) {
      expect(stats.keys.distinct).toBe(base.stats.keys.distinct);
      expect(stats.operations).toEqual(base.stats.operations);
      expect(stats.values.sizeMean).toBeCloseTo(base.stats.values.sizeMean, 9);
      expect(stats.rate.perMinute).toEqual(base.stats.rate.perMinute);
    }
  });

  it('a malformed line is skipped and named by its number; more than --max-malformed allows refuses the trace, naming the line and field', async () => {
    const lines = readFileSync(file, 'latin1').trimEnd().split('\n').slice(0, 5_000);
    lines[41] = 'x17,k:1,3,10,web,get,0';
    const one = join(scratch, 'one-bad.csv');
    writeFileSync(one, `${lines.join('\n')}\n`);
    const { read } = await traceStats(one, DEFAULT, READ);
    expect(read).toMatchObject({ lines: 5_000, requests: 4_999, malformed: 1, firstMalformed: [{ line: 42, problem: 'field timestamp (column 1): not a number ≥ 0' }] });
    lines[99] = '5,k:1,3,10,web';
    lines[100] = '5,k:1,3,big,web,get,0';
    const three = join(scratch, 'three-bad.csv');
    writeFileSync(three, `${lines.join('\n')}\n`);
    const refused = traceStats(three, DEFAULT, { maxMalformedShare: 0.0005 });
    await expect(refused).rejects.toThrow(InputFileError);
    await expect(refused).rejects.toThrow(
      /three-bad\.csv: line 42: field timestamp \(column 1\): not a number ≥ 0; 3 of 5000 lines are malformed, more than --max-malformed 0\.0005 allows/,
    );
    const { read: tolerant } = await traceStats(three, DEFAULT, { maxMalformedShare: 0.01 });
    expect(tolerant.firstMalformed.map((m) => m.line)).toEqual([42, 100, 101]);
    expect(tolerant.firstMalformed[1]!.problem).toBe('5 fields, expected at least 7');
    expect(tolerant.firstMalformed[2]!.problem).toBe('field valueSize (column 4): not a whole number ≥ 0');
  });

  it('a file in another format is refused at its first line, pointing to --columns', async () => {
    const other = join(scratch, 'other.tsv');
    writeFileSync(other, Array.from({ length: 50 }, (_, i) => `${i}\tk${i}\tget`).join('\n'));
    await expect(traceStats(other, DEFAULT, READ)).rejects.toThrow(
      /other\.tsv: line 1: 1 field, expected at least 7 \(no line of the first 50 is a request in this layout: see --columns\)/,
    );
  });
});
