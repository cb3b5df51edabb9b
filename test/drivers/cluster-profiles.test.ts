import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/recorder/result.ts';
import { repoRoot, stampedeAsync } from '../helpers/cli.ts';
import { memcachedStats, startMemcached, type RunningMemcached } from '../helpers/memcached.ts';

/*
 * The production-cluster profiles (profiles/clusters/), each built from one of the 54 Twitter
 * clusters, run as a user runs them: the real CLI against a real memcached on 127.0.0.1, and on the
 * model. Each run is cut to 3 s after a 1 s warm-up (at most 8,000 requests). memcached's own
 * counters must hold every request sent, each as the operation its kind maps to.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-clusters-'));
const PROFILES = readdirSync(join(repoRoot, 'profiles/clusters')).filter((f) => f.endsWith('.yaml'));
const SHORT = ['--set', 'phases[0].duration=3s', '--set', 'warmup=1s', '--quiet'];
let server: RunningMemcached;
beforeAll(async () => {
  server = await startMemcached({ memoryMb: 256 });
});
afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('production-cluster profiles (real CLI; real memcached on 127.0.0.1, and the model)', { timeout: 300_000 }, () => {
  it('there are four, one per workload class', () => {
    expect(PROFILES.sort()).toEqual(['cluster10-add-heavy.yaml', 'cluster12-write-heavy-short-ttl.yaml', 'cluster18-read-heavy-small-values.yaml', 'cluster50-large-values.yaml']);
  });

  it.each(PROFILES)('%s: memcached counts every request the run sent, gets as gets and writes as sets', async (file) => {
    const before = await memcachedStats(server.port);
    const out = join(scratch, `memcached-${file}`);
    const run = await stampedeAsync(['run', join('profiles/clusters', file), '--target', `memcached://${server.address}`, '--out', out, ...SHORT], 120_000);
    expect(run.stderr).toBe('');
    // The SLO's verdict on a real target is the machine's (a busy one breaks a 20 ms p99): PASS or FAIL, never an error.
    expect([0, 1]).toContain(run.status);
    const after = await memcachedStats(server.port);
    const delta = (name: string) => after.get(name)! - before.get(name)!;
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
    expect(Object.keys(result.errors).filter((reason) => reason !== 'timeout')).toEqual([]);
    const byKind = (kinds: string[]) => kinds.reduce((sum, k) => sum + (result.byKind[k]?.requests ?? 0), 0);
    const sent = result.requests.sent + result.requests.warmup;
    expect(delta('cmd_get') + delta('cmd_set')).toBe(sent);
    // The measured window's writes are among memcached's sets (the warm-up's are too).
    expect(delta('cmd_set')).toBeGreaterThanOrEqual(byKind(['set', 'add', 'cas']));
    expect(delta('cmd_get')).toBeGreaterThanOrEqual(byKind(['get', 'gets']));
  });

  // Virtual time: the model's verdict does not depend on the machine.
  it.each(PROFILES)('%s: runs on the model and holds its SLO there', async (file) => {
    const out = join(scratch, `model-${file}`);
    const run = await stampedeAsync(['run', join('profiles/clusters', file), '--out', out, ...SHORT], 120_000);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
    expect(result.requests.ok).toBeGreaterThan(0);
  });
});
