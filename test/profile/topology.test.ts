import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TopologySchema } from '../../src/profile/topology/index.ts';
import { loadProfile } from '../../src/profile/load.ts';

const minimal = { entry: 'api', services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: '1ms' } } } };

function issues(input: unknown): string[] {
  const result = TopologySchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('topology schema', () => {
  it('accepts the minimal topology and fills the defaults', () => {
    const t = TopologySchema.parse(minimal);
    expect(t.services['api']!.queue).toEqual({ limit: Number.POSITIVE_INFINITY, discipline: 'fifo', dropAfter: Number.POSITIVE_INFINITY });
    expect(t.services['api']!.serviceTime).toEqual({ type: 'exponential', mean: 1000 });
    expect(t.services['api']!.calls).toEqual([]);
    expect(t.clientGroups).toEqual({});
  });

  it('resolves client-group, host, cache and database defaults', () => {
    const t = TopologySchema.parse({
      ...minimal,
      hosts: { h: {} },
      clientGroups: { g: { host: 'h' } },
      caches: { c: {} },
      databases: { d: { concurrency: 4, latency: '2ms' } },
    });
    expect(t.hosts['h']).toEqual({ portRange: 28_232, timeWait: 60_000_000, sourceAddresses: 1 });
    expect(t.clientGroups['g']).toEqual({
      instances: 1,
      host: 'h',
      pool: { maxOpen: Infinity, maxIdle: Infinity, connectCost: 0, checkoutTimeout: Infinity, pipelining: 1 },
      fanoutLimit: Infinity,
      timeout: Infinity,
      retries: { count: 0, backoff: { base: 0, max: 1_000_000, jitter: 'full' } },
    });
    expect(t.caches['c']).toMatchObject({ shards: 1, hash: 'murmur3', placement: 'modulo', workers: 4, capacity: Infinity, warm: false });
    expect(t.databases['d']).toEqual({ concurrency: 4, latency: { type: 'fixed', value: 2000 }, slowdown: 0, queue: { limit: Infinity }, rateLimit: Infinity });
  });

  it('accepts an entry map with a default and a caller map', () => {
    const t = TopologySchema.parse({ ...minimal, entry: { default: 'api', admin: 'api' }, caller: { default: 'u' }, clientGroups: { u: {} } });
    expect(t.entry).toEqual({ default: 'api', admin: 'api' });
  });

  it('names every broken reference', () => {
    expect(issues({ ...minimal, entry: 'nope' })).toEqual(['entry: expected the name of a service, got "nope"']);
    expect(issues({ ...minimal, entry: { admin: 'api' } })).toEqual(['entry: expected a `default` service in the entry map']);
    expect(issues({ ...minimal, caller: 'users' })).toEqual(['caller: expected the name of a client group in clientGroups, got "users"']);
    expect(issues({ ...minimal, clientGroups: { g: { host: 'h' } } })).toEqual(['clientGroups.g.host: expected the name of a host in hosts, got "h"']);
    expect(
      issues({
        entry: 'api',
        clientGroups: { g: {} },
        services: {
          api: {
            workers: 1,
            calls: [
              { to: 'other', via: 'g', onMiss: { to: 'x', via: 'y' } },
              { to: 'api2', via: 'nog' },
            ],
          },
          api2: { workers: 1 },
        },
      }),
    ).toEqual([
      'services.api.calls.0.to: expected a service, cache or database name, got "other"',
      'services.api.calls.0.onMiss.to: expected a database or service name, got "x"',
      'services.api.calls.0.onMiss.via: expected the name of a client group in clientGroups, got "y"',
      'services.api.calls.1.via: expected the name of a client group in clientGroups, got "nog"',
    ]);
  });

  it('rejects onMiss on a call that is not to a cache, duplicate names, and call cycles', () => {
    const base = { entry: 'a', clientGroups: { g: {} }, databases: { db: { concurrency: 1, latency: '1ms' } } };
    expect(issues({ ...base, services: { a: { workers: 1, calls: [{ to: 'db', via: 'g', onMiss: { to: 'db', via: 'g' } }] } } })).toEqual([
      'services.a.calls.0.onMiss: onMiss is only for calls to a cache; "db" is a database',
    ]);
    expect(issues({ ...base, services: { a: { workers: 1 }, db: { workers: 1 } } })).toEqual([
      'databases.db: name "db" is already a service; names must be unique across services, caches and databases',
    ]);
    expect(issues({ ...base, services: { a: { workers: 1, calls: [{ to: 'b', via: 'g' }] }, b: { workers: 1, calls: [{ to: 'a', via: 'g' }] } } })).toEqual([
      'services.a.calls: services call each other in a cycle: a → b → a',
    ]);
  });

  it('rejects unknown fields and bad values where they are', () => {
    expect(issues({ ...minimal, services: { api: { workers: 0 } } })).toEqual(['services.api.workers: expected at least 1 (or "inf")']);
    expect(issues({ ...minimal, services: { api: { workers: 1, treads: 2 } } })[0]).toMatch(/^services\.api: Unrecognized key/);
  });

  it('yields a JSON Schema (input side) for editor completion, with descriptions and "inf" defaults', () => {
    const schema = JSON.stringify(z.toJSONSchema(TopologySchema, { io: 'input' }));
    expect(schema).toContain('checkoutTimeout');
    expect(schema).toContain('the Black Friday bug');
    expect(schema).toContain('"default":"inf"');
  });
});

describe('profiles in profiles/', () => {
  const dir = join(import.meta.dirname, '../../profiles');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

  it('includes the incident rehearsals and the M/M/c profile', () => {
    expect(files).toEqual(expect.arrayContaining(['bluesky-20k-batch.yaml', 'black-friday.yaml', 'mmc.yaml', 'sudden-spike.yaml', 'viral-hot-key.yaml']));
  });

  for (const file of files) {
    it(`${file} loads and validates`, async () => {
      const profile = await loadProfile(join(dir, file));
      expect(profile.name).toBe(file.replace(/\.yaml$/, ''));
      // A profile for a real target only has none (profiles/http-reference.yaml).
      if (profile.target === 'model') expect(Object.keys(profile.topology!.services).length).toBeGreaterThan(0);
      else expect(profile.topology).toBeUndefined();
    });
  }
});
