import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemcachedTransportReport } from '../../src/profile/protocols/memcached/spec.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { CLI_ENTRY, repoRoot, stampede, stampedeAsync } from '../helpers/cli.ts';
import { memcachedStats, type RunningMemcached, startMemcached } from '../helpers/memcached.ts';
import { writeSyntheticTrace } from '../helpers/synthetic-trace.ts';

/*
 * `stampede trace replay` through the real CLI: a generated trace (known operations, TTLs, sizes)
 * replayed against a real memcached on 127.0.0.1, whose own counters then equal the trace's
 * operation counts; on the model, into a run folder with a verdict; and its bad input. Loads are a
 * few thousand requests, sped up to take a second or two.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-replay-cli-'));
const OPERATIONS = { get: 40, gets: 5, set: 20, add: 5, replace: 4, cas: 6, append: 2, prepend: 2, delete: 6, incr: 5, decr: 5 };
const trace = join(scratch, 'cluster.csv');
writeSyntheticTrace(trace, {
  seed: 9,
  requests: 4_000,
  ratePerS: 200,
  keys: 300,
  zipfAlpha: 1,
  valueSizeMean: 200,
  operations: OPERATIONS,
  ttls: [
    { ttlS: 120, weight: 1 },
    { ttlS: 600, weight: 1 },
  ],
  clients: [
    { id: 'a', weight: 1 },
    { id: 'b', weight: 1 },
  ],
});
const lines = readFileSync(trace, 'utf8').trim().split('\n');
const count = (ops: readonly string[]) => lines.filter((l) => ops.includes(l.split(',')[5]!)).length;

let server: RunningMemcached;
beforeAll(async () => {
  server = await startMemcached();
});
afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const resultOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;

describe('stampede trace replay (the real CLI)', { timeout: 180_000 }, () => {
  it('against memcached: memcached’s own counters equal the trace’s operation counts', async () => {
    const before = await memcachedStats(server.port);
    const out = join(scratch, 'memcached');
    // 20 s of trace at 10× its pace: 2 s.
    const run = await stampedeAsync(['trace', 'replay', trace, '--target', `memcached://${server.address}`, '--speed', '10', '--out', out, '--quiet'], 120_000);
    expect(run.stderr).toBe('');
    // A short loopback run on a shared machine may be judged INVALID (the generator's own health): a result, still written whole.
    expect([0, 1]).toContain(run.status);
    expect(run.stdout).toBe(`${out}\n`);
    const after = await memcachedStats(server.port);
    const delta = (name: string) => after.get(name)! - before.get(name)!;
    const result = resultOf(out);
    expect(result.errors).toEqual({});
    expect([result.requests.expected, result.requests.sent, result.requests.ok, result.requests.dropped]).toEqual([4_000, 4_000, 4_000, 0]);
    expect(result.durationMs).toBe(2_000);
    expect(delta('cmd_get')).toBe(count(['get', 'gets']));
    expect(delta('cmd_set')).toBe(count(['set', 'add', 'replace', 'cas', 'append', 'prepend']));
    expect(delta('get_hits') + delta('get_misses')).toBe(count(['get', 'gets']));
    for (const op of ['delete', 'incr', 'decr']) expect(delta(`${op}_hits`) + delta(`${op}_misses`), op).toBe(count([op]));
    expect(delta('cas_hits') + delta('cas_badval') + delta('cas_misses')).toBe(count(['cas']));
    // Each kind is its operation, and the driver counted what memcached counted.
    const operations = (result.driver.transport as MemcachedTransportReport).operations;
    for (const op of Object.keys(OPERATIONS)) expect(result.byKind[op]!.requests, op).toBe(count([op]));
    expect(operations.cas).toEqual({ ok: delta('cas_hits'), exists: delta('cas_badval'), notFound: delta('cas_misses'), notStored: 0, nonNumeric: 0 });
    expect(Object.keys(result.byClient).sort()).toEqual(['a', 'b']);
    expect(JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8')).verdict).toBeDefined();
  });

  it('on the model: --window and --speed make an ordinary run folder with a verdict, report and flags', () => {
    const out = join(scratch, 'model');
    const run = stampede(['trace', 'replay', trace, '--window', '5s..10s', '--speed', '2', '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/NO SLO: /);
    const result = resultOf(out);
    // Seconds 5 to 9 of the trace, 200 requests each, in 2.5 s of the run.
    expect([result.requests.expected, result.requests.scheduled, result.target]).toEqual([1_000, 1_000, 'model']);
    expect(result.durationMs).toBe(2_500);
    expect(result.profile.name).toBe('replay-cluster');
    for (const file of ['analysis.json', 'profile.json', 'report.md', 'report.html', 'latency.hlog', 'intervals.jsonl']) expect(existsSync(join(out, file)), file).toBe(true);
    const analysis = JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8'));
    expect(analysis.verdict).toBe('NO SLO');
    // The flags judge the trace's traffic: its keys' skew and its value sizes, not a base profile's.
    const flagged = (analysis.flags as { title: string }[]).map((f) => f.title);
    expect(flagged).not.toContain('uniform keys');
    expect(flagged).not.toContain('every value one size');
  });

  it('with a base profile: its SLO judges the replay', () => {
    const base = join(scratch, 'base.yaml');
    writeFileSync(
      base,
      `name: base\nphases: [{ type: steady, rate: 10, duration: 1s }]\nslo: { latency: [{ percentile: 50, max: 1h }] }\ntopology: ${join(repoRoot, 'profiles/topologies/lookaside-cache.yaml')}\n`,
    );
    const out = join(scratch, 'judged');
    const run = stampede(['trace', 'replay', trace, '--profile', base, '--window', '0..10s', '--speed', '4', '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^PASS/m);
    expect(resultOf(out).requests.expected).toBe(2_000);
  });

  it('Ctrl-C: what was sent is written, marked interrupted (exit 130)', async () => {
    const out = join(scratch, 'interrupted');
    const child = spawn(process.execPath, [CLI_ENTRY, 'trace', 'replay', trace, '--target', `memcached://${server.address}`, '--out', out, '--quiet'], { cwd: repoRoot });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The run is under way once its first interval is in the log; the trace lasts 20 s at its own pace.
    const started = () => existsSync(join(out, 'intervals.jsonl')) && readFileSync(join(out, 'intervals.jsonl'), 'utf8') !== '';
    while (!started() && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    expect(child.exitCode).toBeNull();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).not.toMatch(/\n\s+at /);
    const result = resultOf(out);
    expect(result.interrupted).toBe(true);
    expect(result.requests.sent).toBeGreaterThan(0);
    expect(result.requests.sent).toBeLessThan(4_000);
  });

  it('bad input: one line naming the option, or the file and line, exit 2, no stack', () => {
    const bad = (args: string[], message: RegExp) => {
      const run = stampede(['trace', 'replay', ...args]);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stdout).toBe('');
    };
    bad([trace, '--speed', '0'], /--speed: expected a number > 0/);
    bad([trace, '--speed', 'fast'], /--speed: expected a number/);
    bad([trace, '--window', '10s'], /--window: expected from\.\.to/);
    bad([trace, '--window', '9s..3s'], /--window: its end \(3s\) is not after its start \(9s\)/);
    bad([trace, '--window', '100s..200s'], /cluster\.csv: the window 100s\.\.200s holds no request of the trace/);
    bad([join(scratch, 'missing.csv')], /missing\.csv/);
    bad([trace, '--json'], /--json: applies to trace stats/);
    bad([trace, '--target', 'memcached://'], /--target/);
    const spaced = join(scratch, 'spaced.csv');
    writeFileSync(spaced, '1,a key,5,10,c,get,0\n');
    bad([spaced, '--target', `memcached://${server.address}`], /spaced\.csv: line 1: field key: "a key" holds a space/);
    const stats = stampede(['trace', 'stats', trace, '--window', '0..1s']);
    expect(stats.status).toBe(2);
    expect(stats.stderr).toMatch(/--window: applies to trace replay/);
  });
});
