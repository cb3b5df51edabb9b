import { describe, expect, it } from 'vitest';
import { loadProfile, parseProfileText } from '../../src/profile/index.ts';
import { INLINE_TOPOLOGY, fixture, issueAt, issuesOf } from './helpers.ts';

const inline = fixture('inline.yaml');
const text = `name: t
phases:
  - type: steady
    rate: 100
    duration: 10s
mix:
  - { kind: get, weight: 1 }
${INLINE_TOPOLOGY}`;

describe('--set overrides', () => {
  it('sets a number through either index syntax', async () => {
    const bracket = await parseProfileText(text, inline, ['phases[0].rate=2000']);
    const dotted = await parseProfileText(text, inline, ['phases.0.rate=3000']);

    expect(bracket.phases[0]).toMatchObject({ rate: 2000 });
    expect(dotted.phases[0]).toMatchObject({ rate: 3000 });
  });

  it('reads the value as YAML, including flow collections and durations', async () => {
    const profile = await parseProfileText(text, inline, ['slo.latency=[{percentile: 99, max: 50ms}]', 'warmup=5s']);

    expect(profile.slo.latency).toEqual([{ percentile: 99, max: 50_000 }]);
    expect(profile.warmup).toBe(5_000_000);
  });

  it('creates missing parents', async () => {
    const profile = await parseProfileText(text, inline, ['keys.count=10', 'keys.hot[0]={key: viral, start: 1s, rise: 1s, peak: 0.5}']);

    expect(profile.keys.count).toBe(10);
    expect(profile.keys.hot).toEqual([{ key: 'viral', start: 1_000_000, rise: 1_000_000, peak: 0.5, hold: 0 }]);
  });

  it('applies later overrides over earlier ones', async () => {
    const profile = await parseProfileText(text, inline, ['seed=1', 'seed=7']);

    expect(profile.seed).toBe(7);
  });

  it('applies topology.* to the topology file when the profile references one', async () => {
    const profile = await loadProfile(fixture('with-topology-file.yaml'), ['topology.services.api.workers=4']);

    expect(profile.topology).toMatchObject({ services: { api: { workers: 4 } } });
  });

  it('applies topology.* to an inline topology', async () => {
    const profile = await parseProfileText(text, inline, ['topology.services.api.workers=4']);

    expect(profile.topology).toMatchObject({ services: { api: { workers: 4 } } });
  });

  it('names the override when the value it wrote is invalid, pointing where it landed', async () => {
    const issues = await issuesOf(parseProfileText(text, inline, ['phases.0.rate=abc']));

    expect(issues).toEqual([
      {
        file: inline,
        line: 4,
        column: 11,
        path: 'phases[0].rate',
        message: 'expected a number ≥ 0, got "abc" (from --set phases.0.rate=abc)',
        hint: 'requests per second, e.g. 1000',
      },
    ]);
  });

  it('names the override for problems inside parents it created', async () => {
    const issues = await issuesOf(parseProfileText(text, inline, ['keys.popularity={type: zipf, s: 1}']));

    expect(issueAt(issues, 'keys.count').message).toBe(
      'missing required field "count": expected a whole number ≥ 1 (or keys.file) (from --set keys.popularity={type: zipf, s: 1})',
    );
  });

  it('names the topology file for an invalid value set in it', async () => {
    const issues = await issuesOf(loadProfile(fixture('with-topology-file.yaml'), ['topology.services.api.workerz=4']));

    expect(issues).toEqual([
      expect.objectContaining({
        file: fixture('topology.yaml'),
        path: 'topology.services.api.workerz',
        message: 'unknown field "workerz" (from --set topology.services.api.workerz=4)',
        hint: expect.stringContaining('did you mean "workers"?'),
      }),
    ]);
  });

  it('reports malformed overrides together with the profile’s own problems', async () => {
    const issues = await issuesOf(parseProfileText(text.replace('rate: 100', 'rate: fast'), inline, ['seed', '=3', 'a..b=1', 'seed=[1']));

    expect(issues.map((i) => i.message)).toEqual([
      'expected path=value, got "seed" (no "=") (from --set seed)',
      'expected a path like phases[0].rate or slo.latency, got "" (from --set =3)',
      'expected a path like phases[0].rate or slo.latency, got "a..b" (from --set a..b=1)',
      expect.stringMatching(/^expected a YAML value after "=", got a syntax error: .* \(from --set seed=\[1\)$/),
      'expected a number ≥ 0, got "fast"',
    ]);
    for (const issue of issues.slice(0, 4)) expect(issue).toMatchObject({ file: inline, line: 0, hint: expect.stringContaining('--set path=value') });
  });

  it('reports a path through a scalar or past the end of a list', async () => {
    const issues = await issuesOf(parseProfileText(text, inline, ['name.first=x', 'phases[5].rate=1']));

    expect(issueAt(issues, 'name.first')).toMatchObject({ line: 1, column: 7, message: 'name is "t", not a mapping or a list, so it has no "first" (from --set name.first=x)' });
    expect(issueAt(issues, 'phases[5].rate').message).toBe('phases has 1 item; expected an index up to 1, got 5 (from --set phases[5].rate=1)');
  });

  it('keeps the line numbers of untouched nodes', async () => {
    const issues = await issuesOf(parseProfileText(text.replace('kind: get', 'kind: ""'), inline, ['seed=3', 'description=changed']));

    expect(issueAt(issues, 'mix[0].kind')).toMatchObject({ line: 7, message: 'expected at least 1 character, got ""' });
  });
});
