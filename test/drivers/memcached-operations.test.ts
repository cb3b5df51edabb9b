import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProfile } from '../../src/pipeline/run.ts';
import type { MemcachedOperationCounts, MemcachedTransportReport } from '../../src/profile/protocols/memcached/spec.ts';
import { memcachedStats, startMemcached, type RunningMemcached } from '../helpers/memcached.ts';
import { makeProfile } from '../helpers/profile.ts';

/*
 * Every operation the memcached driver speaks, against a real memcached on 127.0.0.1: what the
 * driver counts per operation and outcome is what memcached's own stats counted. 20 keys take a
 * uniform mix of all twelve operations, 600 requests over 0.6 s, so every outcome occurs: adds of
 * keys there and not, cas with a unique still current and gone stale, counters found and missing.
 */

const OPERATIONS = ['get', 'gets', 'set', 'add', 'replace', 'cas', 'append', 'prepend', 'delete', 'incr', 'decr', 'touch'] as const;
const WRITES = new Set(['set', 'add', 'replace', 'cas', 'touch']);

const scratch = mkdtempSync(join(tmpdir(), 'stampede-mc-ops-'));
let server: RunningMemcached;
beforeAll(async () => {
  server = await startMemcached();
});
afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('memcached operations (real memcached on 127.0.0.1)', () => {
  it('counts each operation’s outcomes as memcached’s own stats count them; NOT_FOUND, EXISTS and NOT_STORED are outcomes, not errors', async () => {
    const profile = makeProfile({
      name: 'every-operation',
      arrivals: 'constant',
      phases: [{ type: 'steady', rate: 1000, duration: '0.6s' }],
      keys: { count: 20, prefix: 'op:', popularity: { type: 'uniform' } },
      mix: OPERATIONS.map((kind) => ({ kind, weight: 1, valueSize: 16, ...(WRITES.has(kind) && { ttl: '60s' }) })),
    } as never);
    const before = await memcachedStats(server.port);
    const { result } = await runProfile(profile, { target: `memcached://${server.address}`, outDir: join(scratch, 'every-operation') });
    const after = await memcachedStats(server.port);
    const delta = (name: string) => after.get(name)! - before.get(name)!;

    expect(result.errors).toEqual({});
    expect(result.requests.ok).toBe(600);
    const ops = (result.driver.transport as MemcachedTransportReport).operations;
    const of = (op: (typeof OPERATIONS)[number]): MemcachedOperationCounts => ops[op] ?? { ok: 0, notFound: 0, exists: 0, notStored: 0, nonNumeric: 0 };
    const answered = (c: MemcachedOperationCounts) => c.ok + c.notFound + c.exists + c.notStored + c.nonNumeric;
    // Every request of every kind was answered once, as its own operation.
    for (const op of OPERATIONS) expect(answered(of(op)), op).toBe(result.byKind[op]!.requests);

    const reads = [of('get'), of('gets')];
    expect(delta('cmd_get')).toBe(reads.reduce((n, c) => n + answered(c), 0));
    expect(delta('get_hits')).toBe(reads.reduce((n, c) => n + c.ok, 0));
    expect(delta('get_misses')).toBe(reads.reduce((n, c) => n + c.notFound, 0));
    // Every store is one of memcached's sets, whatever it answered.
    expect(delta('cmd_set')).toBe((['set', 'add', 'replace', 'cas', 'append', 'prepend'] as const).reduce((n, op) => n + answered(of(op)), 0));
    expect([delta('cas_hits'), delta('cas_badval'), delta('cas_misses')]).toEqual([of('cas').ok, of('cas').exists, of('cas').notFound]);
    for (const op of ['delete', 'incr', 'decr', 'touch'] as const) expect([delta(`${op}_hits`), delta(`${op}_misses`)], op).toEqual([of(op).ok, of(op).notFound]);
    expect(delta('cmd_touch')).toBe(answered(of('touch')));

    // The mix makes every outcome happen: an add finds its key there or not, a cas a current unique or a stale one.
    expect(of('add').ok).toBeGreaterThan(0);
    expect(of('add').exists).toBeGreaterThan(0);
    expect(of('replace').notFound).toBeGreaterThan(0);
    // Whether a cas carries its key's current unique depends on which answers arrived before it was
    // sent (wall-clock interleaving on a busy machine), so only that cas answered both ways is asked.
    expect(of('cas').ok + of('cas').exists).toBeGreaterThan(0);
    expect(of('append').notStored + of('prepend').notStored).toBeGreaterThan(0);
    // Values are ASCII digits: a counter that was set counts (no non-numeric answers).
    expect(of('incr').ok).toBeGreaterThan(0);
    expect(of('incr').nonNumeric + of('decr').nonNumeric).toBe(0);
  });
});
