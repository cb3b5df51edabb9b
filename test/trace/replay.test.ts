import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputFileError } from '../../src/files/input-file.ts';
import { emptyRequest } from '../../src/schedule/types.ts';
import { TWITTER_LAYOUT, layoutOf } from '../../src/trace/columns.ts';
import { prepareReplay, type PreparedReplay, type ReplayWindow } from '../../src/trace/index.ts';
import { writeSyntheticTrace, zstdCompress } from '../helpers/synthetic-trace.ts';

/*
 * A trace as a schedule: generated traces with known lines, replayed without a target. Every
 * request of the window comes out once, in order, with its line's operation, key, size and TTL,
 * at (t − window start) / speed — the requests of one timestamp spread evenly over its step.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-replay-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const WHOLE: ReplayWindow = { fromS: 0, toS: Number.POSITIVE_INFINITY };
const READ = { maxMalformedShare: 0.001 };

interface Line {
  t: number;
  key: string;
  valueSize: number;
  client: string;
  op: string;
  ttl: number;
}

function linesOf(file: string): Line[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((text) => {
      const [t, key, , valueSize, client, op, ttl] = text.split(',');
      return { t: Number(t), key: key!, valueSize: Number(valueSize), client: client!, op: op!, ttl: Number(ttl) };
    });
}

interface Sent {
  intendedAtUs: number;
  kind: string;
  client: string;
  key: string;
  valueSize: number;
  ttlUs: number;
}

function drain(replay: PreparedReplay): Sent[] {
  const { schedule } = replay;
  const plan = schedule.plan;
  const into = emptyRequest();
  const out: Sent[] = [];
  for (let seq = 0; schedule.next(into); seq++) {
    expect(into.seq).toBe(seq);
    expect(into.batchSize).toBe(1);
    out.push({
      intendedAtUs: into.intendedAtUs,
      kind: plan.kinds[into.kind]!,
      client: plan.clients[into.client]!.name,
      key: plan.keyspace.keyName(into.keys[0]!),
      valueSize: into.valueSize,
      ttlUs: into.ttlUs,
    });
  }
  return out;
}

async function replayOf(file: string, window = WHOLE, speed = 1): Promise<PreparedReplay> {
  const replay = await prepareReplay(file, TWITTER_LAYOUT, window, speed, READ);
  if (replay === undefined) throw new Error('not interrupted');
  return replay;
}

const SPEC = {
  seed: 22,
  requests: 6_000,
  ratePerS: 200,
  keys: 500,
  zipfAlpha: 1,
  valueSizeMean: 300,
  operations: { get: 50, gets: 5, set: 15, add: 5, replace: 3, cas: 5, append: 2, prepend: 2, delete: 5, incr: 4, decr: 4 },
  ttls: [
    { ttlS: 60, weight: 3 },
    { ttlS: 3600, weight: 1 },
  ],
  clients: [
    { id: 'timeline', weight: 3 },
    { id: 'search svc', weight: 1 },
  ],
  start: 1_000,
};

describe('trace replay schedule', () => {
  it('sends every request of the trace once, in order, with its operation, key, value size, TTL and client; zstd or plain alike', async () => {
    const file = join(scratch, 'whole.csv');
    writeSyntheticTrace(file, SPEC);
    const lines = linesOf(file);
    const replay = await replayOf(file);
    const sent = drain(replay);
    expect(sent).toHaveLength(lines.length);
    sent.forEach((s, i) => {
      const line = lines[i]!;
      expect([s.kind, s.key, s.valueSize, s.ttlUs]).toEqual([line.op, line.key, line.valueSize, line.ttl * 1e6]);
      // Client ids become profile client names: "search svc" is written search_svc.
      expect(s.client).toBe(line.client.replace(' ', '_'));
    });
    for (let i = 1; i < sent.length; i++) expect(sent[i]!.intendedAtUs).toBeGreaterThanOrEqual(sent[i - 1]!.intendedAtUs);

    const plan = replay.schedule.plan;
    expect(plan.expectedRequests).toBe(lines.length);
    // 6,000 requests at 200 a second: 30 whole seconds, the last one's step included.
    expect([plan.warmupUs, plan.durationUs, plan.totalUs]).toEqual([0, 30_000_000, 30_000_000]);
    expect(plan.kinds).toEqual(Object.keys(SPEC.operations));
    plan.kinds.forEach((kind, i) => expect(plan.kindShares[i]! * lines.length).toBeCloseTo(lines.filter((l) => l.op === kind).length, 6));
    expect(plan.keyspace.count).toBe(new Set(lines.map((l) => l.key)).size);
    expect(plan.clients.reduce((n, c) => n + c.expectedRequests, 0)).toBe(lines.length);

    const compressed = drain(await replayOf(zstdCompress(file)));
    expect(compressed).toEqual(sent);
  });

  it('--window keeps the requests from..to after the first; --speed divides every time; one timestamp’s requests spread over its step', async () => {
    const file = join(scratch, 'windowed.csv');
    writeSyntheticTrace(file, SPEC);
    const lines = linesOf(file);
    const first = lines[0]!.t;
    const window = { fromS: 5, toS: 12 };
    const inWindow = lines.filter((l) => l.t - first >= 5 && l.t - first < 12);
    const replay = await replayOf(file, window, 4);
    const sent = drain(replay);
    expect(sent).toHaveLength(inWindow.length);
    expect(sent.map((s) => s.key)).toEqual(inWindow.map((l) => l.key));
    // Second s of the window holds 200 requests: the i-th leaves at (s + i/200) / 4 seconds.
    sent.forEach((s, n) => {
      const second = Math.floor(n / SPEC.ratePerS);
      const i = n % SPEC.ratePerS;
      expect(s.intendedAtUs).toBe(Math.floor((second * 1e6) / 4 + (1e6 / 4) * (i / SPEC.ratePerS)));
    });
    expect(replay.schedule.plan.durationUs).toBe(7_000_000 / 4);
    expect(replay.schedule.plan.expectedRequests).toBe(inWindow.length);
  });

  it('a window open at one end, or ending before the trace does; a header row named by --columns', async () => {
    const file = join(scratch, 'header.csv');
    writeFileSync(file, `op,ts,k\n${['get,10,a', 'set,10,b', 'get,11,a', 'get,13,c', 'delete,14,b'].join('\n')}\n`);
    const layout = layoutOf({ columns: 'timestamp=ts,key=k,operation=op', delimiter: ',', unit: 's' });
    const tail = await prepareReplay(file, layout, { fromS: 3, toS: Number.POSITIVE_INFINITY }, 1, READ);
    const into = emptyRequest();
    const times: number[] = [];
    while (tail!.schedule.next(into)) times.push(into.intendedAtUs);
    // From 13 s: 13 at 0, 14 at 1 s; its one-second step is the smallest gap between timestamps.
    expect(times).toEqual([0, 1_000_000]);
    expect(tail!.schedule.plan.kinds).toEqual(['get', 'delete']);
    const head = await prepareReplay(file, layout, { fromS: 0, toS: 2 }, 1, READ);
    expect(head!.scan.requests).toBe(3);
    expect(head!.schedule.plan.durationUs).toBe(2_000_000);
  });

  it('refuses, naming the file and line: a window with no request, a trace out of time order', async () => {
    const file = join(scratch, 'short.csv');
    writeFileSync(file, '5,a,1,10,c,get,0\n6,b,1,10,c,set,60\n');
    await expect(replayOf(file, { fromS: 10, toS: 20 })).rejects.toThrow(InputFileError);
    await expect(replayOf(file, { fromS: 10, toS: 20 })).rejects.toThrow(/the window 10s\.\.20s holds no request of the trace \(its requests span 0\.\.1s\)/);
    const unordered = join(scratch, 'unordered.csv');
    writeFileSync(unordered, '5,a,1,10,c,get,0\n7,b,1,10,c,set,60\n6,c,1,10,c,get,0\n');
    await expect(replayOf(unordered)).rejects.toThrow(/unordered\.csv.*line 3: field timestamp: 6 is before the line before it \(7\)/);
  });
});
