import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceStatsFile } from '../../src/trace/index.ts';
import { stampede } from '../helpers/cli.ts';
import { writeSyntheticTrace, zstdCompress } from '../helpers/synthetic-trace.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-trace-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const plain = join(scratch, 'cluster.csv');
writeSyntheticTrace(plain, {
  seed: 3,
  requests: 40_000,
  ratePerS: 400,
  keys: 5_000,
  zipfAlpha: 1.0,
  oneHitShare: 0.02,
  operations: { get: 0.9, set: 0.1 },
  valueSizeMean: 120,
  ttls: [{ ttlS: 300, weight: 1 }],
});

describe('stampede trace stats (the real CLI)', () => {
  it('reads a zstd-compressed trace as its plain text, prints the table and writes the same statistics as JSON', () => {
    const compressed = zstdCompress(plain);
    const fromZstd = stampede(['trace', 'stats', compressed, '--out', join(scratch, 'zstd.json')]);
    expect(fromZstd.stderr).toBe(`stampede: wrote ${join(scratch, 'zstd.json')}\n`);
    expect(fromZstd.status).toBe(0);
    expect(fromZstd.stdout).toMatch(/^trace .*cluster\.csv\.zst\n {2}requests +40,000 over 100s \(zstd\)\n/);
    expect(fromZstd.stdout).toMatch(/^ {2}operations +get:0\.(89|90|91)\d set:0\.(09|10|11)\d$/m);
    expect(fromZstd.stdout).toMatch(/^ {2}common TTLs +300s:1\.00$/m);
    expect(fromZstd.stdout).toMatch(/^ {2}Zipf alpha +(0\.9[5-9]|1\.0[0-5])\d \(frequencies within ×1\.\d\d of the line over the top \d+ keys\)$/m);
    const fromPlain = stampede(['trace', 'stats', plain, '--json', '--out', join(scratch, 'plain.json')]);
    expect(fromPlain.status).toBe(0);
    const printed = JSON.parse(fromPlain.stdout) as TraceStatsFile;
    const written = JSON.parse(readFileSync(join(scratch, 'zstd.json'), 'utf8')) as TraceStatsFile;
    expect(written.read.compressed).toBe(true);
    expect(printed.read.compressed).toBe(false);
    expect(written.stats).toEqual(printed.stats);
    expect(JSON.parse(readFileSync(join(scratch, 'plain.json'), 'utf8'))).toEqual(printed);
  });

  it('fit writes a profile that loads and runs on the model, and names what it could not fit', () => {
    const out = join(scratch, 'fitted', 'cluster.yaml');
    mkdirSync(join(scratch, 'fitted'));
    const fit = stampede(['trace', 'fit', plain, '--out', out]);
    expect(fit.stderr).toBe(`stampede: wrote ${out} (stampede run ${out})\n`);
    expect(fit.status).toBe(0);
    expect(fit.stdout).toMatch(/^ {2}fit: popularity: Zipf (0\.9[5-9]|1\.0[0-5])\d* \(frequencies within ×1\.\d\d of the line over the top \d+ keys\)$/m);
    expect(fit.stdout).toMatch(/^ {2}fit: TTLs: each write kind sets its own \(300s 100% of all writes\); the model expires each item at its TTL$/m);
    const yaml = readFileSync(out, 'utf8');
    expect(yaml).toMatch(/^# Fitted by stampede trace fit from .*cluster\.csv \(40000 requests over 100s\)\.\n/);
    expect(yaml).toMatch(/^phases:\n {2}- \{ type: steady, rate: 400, duration: 100s \}\n/m);
    expect(yaml).toMatch(/^ {4}ttl: 300s$/m);
    const run = stampede(['run', out, '--set', 'phases[0].duration=2s', '--set', 'warmup=1s', '--out', join(scratch, 'fitted-run'), '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(readFileSync(join(scratch, 'fitted-run', 'result.json'), 'utf8')) as { requests: { ok: number; failed: number } };
    expect(result.requests.ok).toBeGreaterThan(0);
    expect(result.requests.failed).toBe(0);
  });

  it('bad input is exit 2 with one line naming the file, the line and the field; nothing is written', () => {
    const lines = readFileSync(plain, 'latin1').split('\n');
    lines[6] = '3,k:9,3,-5,1,get,0';
    const corrupt = join(scratch, 'corrupt.csv');
    writeFileSync(corrupt, lines.join('\n'));
    const out = join(scratch, 'never.json');
    const cases: [string[], RegExp][] = [
      [
        ['trace', 'stats', corrupt, '--max-malformed', '0'],
        /^stampede: .*corrupt\.csv: line 7: field valueSize \(column 4\): not a whole number ≥ 0; 1 of 40000 lines are malformed/,
      ],
      [['trace', 'stats', join(scratch, 'absent.csv')], /^stampede: .*absent\.csv: no such file\n$/],
      [
        ['trace', 'stats', plain, '--columns', 'timestamp=1,size=2'],
        /^stampede: --columns: "size" is not a trace field \(fields: timestamp, key, keySize, valueSize, client, operation, ttl\)\n$/,
      ],
      [['trace', 'stats', plain, '--columns', 'key=2'], /^stampede: --columns: no timestamp column: a trace needs at least timestamp and key\n$/],
      [['trace', 'stats', plain, '--delimiter', '::'], /^stampede: --delimiter: the delimiter must be one ASCII character, not "::"\n$/],
      [['trace', 'stats', plain, '--max-malformed', '2'], /^stampede: --max-malformed: 2 is not a share between 0 and 1 \(e\.g\. 0\.001\)\n$/],
    ];
    for (const [args, message] of cases) {
      const run = stampede([...args, '--out', out]);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    const notZstd = join(scratch, 'cut.zst');
    writeFileSync(notZstd, readFileSync(zstdCompress(plain)).subarray(0, 5_000));
    const cut = stampede(['trace', 'stats', notZstd, '--out', out]);
    expect(cut.status).toBe(2);
    expect(cut.stderr).toMatch(/^stampede: .*cut\.zst: not a whole zstd stream \(.+\)$/m);
    expect(() => readFileSync(out)).toThrow();
  });
});
