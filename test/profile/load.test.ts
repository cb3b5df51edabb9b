import { describe, expect, it } from 'vitest';
import { loadProfile, parseProfileText } from '../../src/profile/index.ts';
import { INLINE_TOPOLOGY, fixture, issuesOf } from './helpers.ts';

describe('loadProfile', () => {
  it('loads a valid profile with defaults applied and durations in µs', async () => {
    const profile = await loadProfile(fixture('valid.yaml'));

    expect(profile.name).toBe('checkout-smoke');
    expect(profile.phases).toEqual([
      { type: 'ramp', from: 100, to: 1000, duration: 30_000_000 },
      { type: 'steady', rate: 1000, duration: 120_000_000 },
      { type: 'spike', base: 1000, peak: 5000, rise: 500_000, hold: 5_000_000, decay: 1_500_000 },
    ]);
    expect(profile.slo.latency).toEqual([{ percentile: 99, max: 50_000, kind: 'get' }]);
    // Defaults from the schema.
    expect(profile).toMatchObject({ seed: 1, warmup: 0, arrivals: 'poisson', description: '', target: 'model', multipliers: [] });
    expect(profile.clients).toEqual([{ name: 'default', share: 1, start: 0, instances: 1 }]);
    expect(profile.keys).toEqual({ count: 100_000, popularity: { type: 'uniform' }, prefix: 'key:', hot: [] });
    expect(profile.batch).toEqual({ type: 'fixed', value: 1 });
    expect(profile.topology).toMatchObject({ entry: 'api' });
    expect(profile.source).toEqual({ file: fixture('valid.yaml'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), overrides: [] });
  });

  it('loads a topology file relative to the profile and records it in source', async () => {
    const profile = await loadProfile(fixture('with-topology-file.yaml'));

    expect(profile.topology).toMatchObject({ entry: 'api', services: { api: { workers: 8 } } });
    expect(profile.source.topologyFile).toBe(fixture('topology.yaml'));
  });

  it('reports an unreadable profile as a ProfileError', async () => {
    const issues = await issuesOf(loadProfile(fixture('does-not-exist.yaml')));

    expect(issues).toEqual([expect.objectContaining({ file: fixture('does-not-exist.yaml'), line: 0, message: 'cannot read the profile: no such file' })]);
  });

  it('reports a missing topology file at the topology field of the profile', async () => {
    const text = 'name: t\nphases: [{ type: steady, rate: 1, duration: 1s }]\ntopology: nowhere.yaml\n';
    const issues = await issuesOf(parseProfileText(text, fixture('inline.yaml')));

    expect(issues).toEqual([expect.objectContaining({ file: fixture('inline.yaml'), line: 3, column: 11, path: 'topology', message: expect.stringContaining('no such file') })]);
  });
});

describe('source.sha256', () => {
  const text = `name: hashed\nphases:\n  - { type: steady, rate: 100, duration: 10s }\n${INLINE_TOPOLOGY}`;
  const name = fixture('inline.yaml');

  it('is stable for the same profile, however its fields are ordered or its durations written', async () => {
    const reordered = `${INLINE_TOPOLOGY}phases:\n  - { duration: 10000ms, rate: 100, type: steady }\nname: hashed\n`;

    const a = await parseProfileText(text, name);
    const b = await parseProfileText(text, name);
    const c = await parseProfileText(reordered, name);

    expect(b.source.sha256).toBe(a.source.sha256);
    expect(c.source.sha256).toBe(a.source.sha256);
  });

  it('changes when an override changes the profile', async () => {
    const plain = await parseProfileText(text, name);
    const overridden = await parseProfileText(text, name, ['phases[0].rate=200']);

    expect(overridden.source.sha256).not.toBe(plain.source.sha256);
    expect(overridden.source.overrides).toEqual(['phases[0].rate=200']);
  });

  it('covers the topology loaded from a file', async () => {
    const plain = await loadProfile(fixture('with-topology-file.yaml'));
    const overridden = await loadProfile(fixture('with-topology-file.yaml'), ['topology.services.api.workers=4']);

    expect(overridden.source.sha256).not.toBe(plain.source.sha256);
  });
});
