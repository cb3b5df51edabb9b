import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/profile/protocols/registry.ts';
import { TimelineRefusedError } from '../../src/driver/errors.ts';
import { Sharding } from '../../src/driver/sharded/sharding.ts';
import { EXEC_OUTPUT_TAIL_BYTES, startExec } from '../../src/driver/timeline/exec.ts';
import { checkTimeline, planTimeline } from '../../src/driver/timeline/steps.ts';
import { TimelineEventSchema } from '../../src/profile/topology/index.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { makeProfile } from '../helpers/profile.ts';

const events = (...raw: unknown[]) => raw.map((e) => TimelineEventSchema.parse(e));
const servers = ['a:1', 'b:1', 'c:1', 'd:1', 'e:1'];
/** A memcached target of these servers, in ring order. */
const memcached = (listed: readonly string[]) => parseTarget(`memcached://${listed.join(',')}`);

describe('the timeline planned for a memcached ring', () => {
  it('paced removals take the highest-numbered servers out one every N s; addShards brings in the target’s last ones; restoreShards puts removed ones back, lowest first', () => {
    const steps = planTimeline({
      target: memcached(servers),
      clients: ['default'],
      events: events(
        { type: 'removeShards', at: '10s', cache: 'c', count: 2, every: '5s' },
        { type: 'addShards', at: '30s', cache: 'c', count: 1 },
        { type: 'restoreShards', at: '40s', cache: 'c', every: '1s' },
      ),
    });
    expect(steps.map((s) => [s.plannedMs, s.label, s.action])).toEqual([
      [10_000, 'removeShards: d:1 leaves the ring (3 in it)', { kind: 'ring', server: 3, inRing: false }],
      [15_000, 'removeShards: c:1 leaves the ring (2 in it)', { kind: 'ring', server: 2, inRing: false }],
      [30_000, 'addShards: e:1 joins the ring (3 in it)', { kind: 'ring', server: 4, inRing: true }],
      [40_000, 'restoreShards: c:1 rejoins the ring (4 in it)', { kind: 'ring', server: 2, inRing: true }],
      [41_000, 'restoreShards: d:1 rejoins the ring (5 in it)', { kind: 'ring', server: 3, inRing: true }],
    ]);
  });

  it('removeShards with named shards takes those servers out, in order; a shard not in the ring then is refused', () => {
    const base = { target: memcached(servers.slice(0, 4)), clients: ['default'] };
    const steps = planTimeline({ ...base, events: events({ type: 'removeShards', at: '10s', cache: 'c', shards: [1, 0], every: '2s' }) });
    expect(steps.map((s) => [s.plannedMs, s.action])).toEqual([
      [10_000, { kind: 'ring', server: 1, inRing: false }],
      [12_000, { kind: 'ring', server: 0, inRing: false }],
    ]);
    expect(() => planTimeline({ ...base, events: events({ type: 'removeShards', at: '1s', cache: 'c', shards: [2, 2] }) })).toThrow(
      /removeShards at 1s\): server 2 is not in the ring then/,
    );
    const model = planTimeline({ target: parseTarget('model'), clients: ['default'], events: events({ type: 'removeShards', at: '1s', cache: 'c', shards: '2-3' }) });
    expect(model.map((s) => s.label)).toEqual(['removeShards: shard 2 leaves c', 'removeShards: shard 3 leaves c']);
  });

  it('refuses what a real target cannot play, naming the event', () => {
    const refused = (input: Parameters<typeof planTimeline>[0]) => () => planTimeline(input);
    const base = { target: memcached(servers.slice(0, 2)), clients: ['default'] };
    expect(refused({ ...base, events: events({ type: 'removeShards', at: '1s', cache: 'c', count: 2 }) })).toThrow(
      /timeline\[0\] \(removeShards at 1s\): removing 2 server\(s\) would leave the ring empty/,
    );
    expect(refused({ ...base, events: events({ type: 'addShards', at: '1s', cache: 'c', count: 2 }) })).toThrow(/adds 2 server\(s\) and the target lists 2/);
    expect(refused({ ...base, events: events({ type: 'restoreShards', at: '1s', cache: 'c' }) })).toThrow(/no server is out of the ring/);
    expect(refused({ ...base, events: events({ type: 'flush', at: '1s', cache: 'c' }) })).toThrow(TimelineRefusedError);
    expect(refused({ ...base, target: parseTarget('http://127.0.0.1:8080'), events: events({ type: 'removeShards', at: '1s', cache: 'c', count: 1 }) })).toThrow(
      /this http:\/\/ target cannot apply a removeShards event/,
    );
    expect(refused({ ...base, events: events({ type: 'shift', at: '1s', from: 'default', to: 'nobody', fraction: 1 }) })).toThrow(/no client named "nobody"/);
  });

  it('exec needs --allow-exec on a real target, and one sending thread; the model lists it without running it', () => {
    const exec = events({ type: 'exec', at: '2s', command: 'echo "$HOME"' });
    const input = { target: parseTarget('http://127.0.0.1:8080'), clients: ['default'], events: exec };
    expect(() => checkTimeline(input, { allowExec: false, workers: 1 })).toThrow(/timeline\[0\] \(exec at 2s\) runs a command on this machine; rerun with --allow-exec/);
    expect(() => checkTimeline(input, { allowExec: true, workers: 2 })).toThrow(/drop --workers \(2\)/);
    // A string is the user's own shell command, passed to sh as one argument: nothing is added to it.
    expect(checkTimeline(input, { allowExec: true, workers: 1 })[0]!.action).toEqual({ kind: 'exec', argv: ['/bin/sh', '-c', 'echo "$HOME"'], timeoutMs: 30_000 });
    expect(checkTimeline({ ...input, target: parseTarget('model') }, { allowExec: false, workers: 1 })).toHaveLength(1);
  });
});

describe('the memcached ring through a membership change', () => {
  const keyspace = createSchedule(makeProfile({ name: 'k', phases: [{ type: 'steady', rate: 1, duration: 1 }], keys: { count: 2000 } } as never)).plan.keyspace;
  const four = [0, 1, 2, 3].map((i) => ({ host: '127.0.0.1', port: 11211 + i }));
  const moved = (distribution: 'modulo' | 'ketama') => {
    const sharding = new Sharding('murmur3', distribution, four, keyspace);
    const before = Array.from({ length: 2000 }, (_, id) => sharding.shardOf(id));
    sharding.setInRing(3, false);
    const after = Array.from({ length: 2000 }, (_, id) => sharding.shardOf(id));
    expect(after).not.toContain(3);
    return { moved: before.filter((s, id) => s !== after[id]).length, onRemoved: before.filter((s) => s === 3).length };
  };

  it('ketama moves only the removed server’s keys; modulo moves most keys', () => {
    const ketama = moved('ketama');
    expect(ketama.moved).toBe(ketama.onRemoved);
    expect(moved('modulo').moved).toBeGreaterThan(2000 / 2);
  });
});

describe('an exec step’s command', () => {
  it('keeps the last bytes of its output (one stream here: two interleave as they arrive) and its exit code; one that cannot start has its error and no exit code', async () => {
    const now = () => performance.now();
    const loud = await startExec([process.execPath, '-e', `process.stdout.write('x'.repeat(10000) + 'the end', () => process.exit(3))`], 20_000, now).done;
    expect(loud).toMatchObject({ exitCode: 3, signal: null, timedOut: false });
    expect(loud.outputTail).toHaveLength(EXEC_OUTPUT_TAIL_BYTES);
    expect(loud.outputTail.endsWith('the end')).toBe(true);
    const missing = await startExec(['/no/such/command'], 20_000, now).done;
    expect(missing).toMatchObject({ exitCode: null, timedOut: false, error: expect.stringContaining('ENOENT') });
  });
});
