import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stampede, stampedeAsync } from '../helpers/cli.ts';
import { memcachedUsage, type RunningMemcached, startMemcached } from '../helpers/memcached.ts';
import { freePort, startHttpTarget } from '../helpers/targets.ts';

/*
 * Hostile inputs, class "inputs": values a profile or a command line carries that the target cannot
 * take, or that stampede would send as written. Each is refused before the first request (exit 2,
 * naming the file, line and field) or said plainly; none reaches the target.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-hostile-inputs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SMALL_MODEL = 'test/fixtures/cli/small.yaml';

function write(name: string, text: string): string {
  const file = join(scratch, name);
  writeFileSync(file, text);
  return file;
}

/** A profile of 1 s at 50 rps, no SLO, sending to `target`. */
function realProfile(name: string, target: string, extra = ''): string {
  return write(`${name}.yaml`, `name: ${name}\nphases: [{ type: steady, rate: 50, duration: 1s }]\ntarget: ${target}\n${extra}`);
}

describe('memcached keys the server cannot take', () => {
  let memcached: RunningMemcached;
  beforeAll(async () => {
    memcached = await startMemcached();
  });
  afterAll(() => memcached.stop());

  it('a key over 250 bytes or with a space, in keys.file: exit 2 naming the CSV line, no folder, and memcached saw no get', async () => {
    const long = 'u'.repeat(300);
    write('keys.csv', `key,weight\nuser:1,5\n${long},2\n"user 2",1\nuser:3,1\n`);
    const profile = realProfile('long-keys', `memcached://${memcached.address}`, 'keys: { file: keys.csv }\n');
    const out = join(scratch, 'long-keys-run');
    const run = await stampedeAsync(['run', profile, '--out', out]);
    expect(run.stderr).toBe(
      [
        `${join(scratch, 'keys.csv')}:3:1  key: key "${'u'.repeat(40)}…" is 300 bytes, over memcached's 250`,
        '    hint: fix or drop the key in this file: a memcached target takes keys of at most 250 bytes (UTF-8) with no space or control character',
        `${join(scratch, 'keys.csv')}:4:1  key: key "user 2" holds a space, which memcached keys cannot`,
        '    hint: fix or drop the key in this file: a memcached target takes keys of at most 250 bytes (UTF-8) with no space or control character',
        '',
      ].join('\n'),
    );
    expect(run.status).toBe(2);
    expect(existsSync(out)).toBe(false);
    expect((await memcachedUsage(memcached.port)).keysGot).toBe(0);
    // validate names the same keys for a memcached target, and passes the file for an http one.
    expect(stampede(['validate', profile]).status).toBe(2);
    expect(stampede(['validate', profile, '--target', 'http://127.0.0.1:8080']).status).toBe(0);

    // The check can fail: the same profile with the keys fixed reaches memcached.
    write('keys.csv', 'key,weight\nuser:1,5\nuser:2,1\nuser:3,1\n');
    const fixed = await stampedeAsync(['run', profile, '--out', join(scratch, 'fixed-keys-run'), '--quiet']);
    expect(fixed.status, fixed.stderr).not.toBe(2);
    expect((await memcachedUsage(memcached.port)).keysGot).toBeGreaterThan(0);
  });

  it('a generated key too long (keys.prefix + the largest index): exit 2 naming keys.prefix and its line', async () => {
    const profile = realProfile('long-prefix', `memcached://${memcached.address}`, `keys: { count: 1000, prefix: "${'p'.repeat(248)}" }\n`);
    const run = stampede(['run', profile, '--out', join(scratch, 'long-prefix-run')]);
    expect(run.stderr.split('\n')[0]).toBe(
      `${profile}:4:30  keys.prefix: the longest generated key, "${'p'.repeat(40)}…" (keys.prefix + the largest index 999), is 251 bytes, over memcached's 250`,
    );
    expect(run.status).toBe(2);
    expect(existsSync(join(scratch, 'long-prefix-run'))).toBe(false);
  });
});

describe('a memcached target that cannot start', () => {
  it('says why, server by server: exit 3', async () => {
    const port = await freePort();
    const run = stampede(['run', realProfile('no-memcached', `memcached://127.0.0.1:${port}`, 'keys: { count: 10 }\n'), '--out', join(scratch, 'no-memcached-run')]);
    expect(run.stderr).toBe(
      `stampede: could not start: memcached://127.0.0.1:${port}: no connection could be made to any server before the run (refused or unreachable); last failure on 127.0.0.1:${port}: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port} — is memcached running and listening there?\n`,
    );
    expect(run.status).toBe(3);
  });
});

describe('${NAME} where no template reads it', () => {
  it('in statsPath: exit 2 naming http.statsPath, its line and the fields that take ${NAME}; the target gets nothing', async () => {
    let requests = 0;
    const target = await startHttpTarget((_req, res) => {
      requests++;
      res.end('{}');
    });
    try {
      const profile = realProfile('stats-reference', target.url, 'http:\n  statsPath: /stats?token=${STATS_TOKEN}\n');
      const run = await stampedeAsync(['run', profile, '--out', join(scratch, 'stats-reference-run')], 120_000, { STATS_TOKEN: 'not-read-here' });
      expect(run.stderr).toBe(
        [
          `${profile}:5:14  http.statsPath: "\${STATS_TOKEN}" is not read from the environment here: the stats path is requested as written`,
          '    hint: ${NAME} is read only in http.requests.<kind>.path, .headers.<name> and .body (and by /bin/sh in a timeline exec command written as one string); write the value itself here',
          '',
        ].join('\n'),
      );
      expect(run.status).toBe(2);
      expect(requests).toBe(0);
    } finally {
      await target.close();
    }
  });

  it('export k6 writes it as a read of __ENV, never the value', () => {
    const script = join(scratch, 'http-reference.ts');
    const exported = stampede(['export', 'k6', 'profiles/http-reference.yaml', '-o', script], 60_000, { AUTH_TOKEN: 'secret-token-value' });
    expect(exported.status).toBe(0);
    const text = readFileSync(script, 'utf8');
    expect(text).toContain('authorization: `Bearer ${__ENV.AUTH_TOKEN}`');
    expect(text).not.toContain("'Bearer ${AUTH_TOKEN}'");
    expect(text).not.toContain('secret-token-value');
  });
});

describe('the command line', () => {
  it('--segment -1/3 says what is wrong with the segment: exit 2', () => {
    const run = stampede(['run', SMALL_MODEL, '--segment', '-1/3', '--out', join(scratch, 'segment-run')]);
    expect(run.stderr).toBe('stampede: --segment: segment -1 of 3 does not exist (segments are numbered from 0: 0 to 2) (e.g. --segment 0/3)\n');
    expect(run.status).toBe(2);
    expect(existsSync(join(scratch, 'segment-run'))).toBe(false);
  });
});

describe('a run with zero requests', () => {
  it('says so plainly, first; its checks are not measured (no "0us > 50ms"); INVALID, exit 1, and every file parses', () => {
    const out = join(scratch, 'zero-run');
    const run = stampede(['run', SMALL_MODEL, '--set', 'phases[0].rate=0', '--out', out]);
    expect(run.status).toBe(1);
    const verdict = run.stdout.trim().split('\n').at(-1)!;
    expect(verdict).toMatch(/^INVALID: no requests were measured: the plan sends none in the measured window \(a rate of 0\), so there is nothing to judge; /);
    expect(run.stdout).not.toContain('measured 0us');
    const analysis = JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8')) as { verdict: string; reasons: string[] };
    expect(analysis.verdict).toBe('INVALID');
    expect(analysis.reasons).toEqual([
      'no requests were measured: the plan sends none in the measured window (a rate of 0), so there is nothing to judge',
      'too few samples for p99 (p99 from 0 requests: 0 beyond it)',
      'p99 ≤ 50ms: not measured (no requests in this slice), so it cannot pass',
      'error rate ≤ 1%: not measured (no requests completed), so it cannot pass',
    ]);
    expect(JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')).requests.sent).toBe(0);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('| FAIL | p99 ≤ 50ms      | –        | no requests in this slice |');
  });
});
