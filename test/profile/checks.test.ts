import { describe, expect, it } from 'vitest';
import { parseProfileText } from '../../src/profile/index.ts';
import { INLINE_TOPOLOGY, fixture, issuesOf } from './helpers.ts';

const inline = fixture('inline.yaml');
const profile = (rest: string): string => `name: t\nphases:\n  - { type: steady, rate: 100, duration: 10s }\n${rest}${INLINE_TOPOLOGY}`;

/** Each row: extra YAML, the path of the expected issue, and its message. */
const rows: readonly (readonly [string, string, string, string])[] = [
  ['duplicate client names', 'clients:\n  - { name: a, share: 1 }\n  - { name: a, share: 1 }\n', 'clients[1].name', 'duplicate client name "a" (also clients[0])'],
  ['multiplier naming an unknown client', 'multipliers:\n  - { at: 1s, factor: 2, clients: [ghost] }\n', 'multipliers[0].clients[0]', 'expected the name of a client, got "ghost"'],
  [
    'hot key naming an unknown client',
    'keys:\n  count: 10\n  hot: [{ key: k, start: 0, rise: 1s, peak: 0.1, clients: [ghost] }]\n',
    'keys.hot[0].clients[0]',
    'expected the name of a client, got "ghost"',
  ],
  ['SLO naming an unknown client', 'slo:\n  latency: [{ percentile: 99, max: 10ms, client: ghost }]\n', 'slo.latency[0].client', 'expected the name of a client, got "ghost"'],
  [
    'SLO naming a kind nobody sends',
    'slo:\n  latency: [{ percentile: 99, max: 10ms, kind: put }]\n',
    'slo.latency[0].kind',
    'expected a request kind sent by the profile and its clients (get), got "put"',
  ],
  [
    'SLO naming a kind the named client does not send',
    'clients:\n  - { name: a, share: 1 }\n  - { name: b, rate: 5, mix: [{ kind: put, weight: 1 }] }\nslo:\n  latency: [{ percentile: 99, max: 10ms, kind: put, client: a }]\n',
    'slo.latency[0].kind',
    'expected a request kind sent by client "a" (get), got "put"',
  ],
  ['duration shorter than the phases', 'duration: 5s\n', 'duration', 'expected duration ≥ the sum of the phase durations (10s), got "5s"'],
  // The checks read the schema's output: a duration is quoted the way a profile writes it, whatever unit it was given in.
  ['duration in seconds shorter than the phases', 'duration: 5\n', 'duration', 'expected duration ≥ the sum of the phase durations (10s), got "5s"'],
  [
    'multiplier ending before it starts, in other units',
    'multipliers:\n  - { at: 10000ms, until: 3, factor: 2 }\n',
    'multipliers[0].until',
    'expected until after at ("10s"), got "3s"',
  ],
  [
    'spike duration shorter than rise+hold+decay',
    'clients:\n  - name: a\n    phases: [{ type: spike, base: 1, peak: 2, rise: 1s, hold: 1s, decay: 1s, duration: 2s }]\n',
    'clients[0].phases[0].duration',
    'expected duration ≥ rise+hold+decay (3s), got "2s"',
  ],
  ['multiplier ending before it starts', 'multipliers:\n  - { at: 10s, until: 5s, factor: 2 }\n', 'multipliers[0].until', 'expected until after at ("10s"), got "5s"'],
  [
    'hot-key peaks above 1',
    'keys:\n  count: 10\n  hot:\n    - { key: a, start: 0, rise: 1s, peak: 0.6 }\n    - { key: b, start: 0, rise: 1s, peak: 0.5 }\n',
    'keys.hot',
    "expected the hot keys' peaks to add up to at most 1, got 1.1",
  ],
  [
    'hotspot with no hot key',
    'keys:\n  count: 100\n  popularity: { type: hotspot, keyFraction: 0.001, trafficShare: 0.9 }\n',
    'keys.popularity.keyFraction',
    'expected keyFraction × count ≥ 1 (at least one hot key), got 0.001 × 100 = 0.1',
  ],
  ['client ending before it starts', 'clients:\n  - { name: a, share: 1, start: 10s, end: 10s }\n', 'clients[0].end', 'expected end after start ("10s"), got "10s"'],
  ['lognormal min above max', 'batch: { type: lognormal, median: 5, sigma: 1, min: 9, max: 2 }\n', 'batch.max', 'expected max ≥ min (9), got 2'],
  [
    'exponential min above max inside a mixture',
    'valueSize:\n  type: mixture\n  of:\n    - { type: fixed, value: 1, weight: 1 }\n    - { type: exponential, mean: 5, min: 9, max: 2, weight: 1 }\n',
    'valueSize.of[1].max',
    'expected max ≥ min (9), got 2',
  ],
];

describe('cross-field checks', () => {
  it.each(rows)('%s', async (_, yaml, path, message) => {
    const issues = await issuesOf(parseProfileText(profile(yaml), inline));

    expect(issues).toEqual([expect.objectContaining({ file: inline, path, message, hint: expect.stringMatching(/\S/) })]);
  });

  it.each([
    ['a header value', 'http:\n  requests:\n    get:\n      headers: { x-user: "a\\r\\nX-Admin: yes" }\n', 'http.requests.get.headers.x-user', 7, 'header x-user'],
    ['a header name', 'http:\n  requests:\n    get:\n      headers: { "x-a\\nb": "v" }\n', 'http.requests.get.headers.x-a\nb', 7, 'a header name'],
    ['a path', 'http:\n  requests:\n    get:\n      path: "/a HTTP/1.1\\r\\n\\r\\nGET /b"\n', 'http.requests.get.path', 7, 'path'],
  ])('refuse a line break in %s of a request template (request splitting), at its line', async (_, yaml, path, line, where) => {
    const issues = await issuesOf(parseProfileText(profile(yaml), inline));

    expect(issues).toEqual([
      expect.objectContaining({ file: inline, path, line, message: expect.stringContaining(`no CR, LF or NUL in ${where}`), hint: expect.stringMatching(/request splitting/) }),
    ]);
  });

  it('a timeline shift must name two profile clients', async () => {
    const text = profile('').replace(
      'serviceTime: { type: exponential, mean: 1ms }\n',
      'serviceTime: { type: exponential, mean: 1ms }\n  timeline:\n    - { type: shift, at: 1s, from: default, to: west, fraction: 1 }\n',
    );
    const issues = await issuesOf(parseProfileText(text, inline));

    expect(issues).toEqual([expect.objectContaining({ path: 'topology.timeline[0].to', message: 'expected the name of a client, got "west"', hint: 'clients are: default' })]);
  });

  it('are reported together with schema issues', async () => {
    const yaml = 'seed: -1\nduration: 5s\nmultipliers:\n  - { at: 10s, until: 5s, factor: lots }\n';
    const issues = await issuesOf(parseProfileText(profile(yaml), inline));

    expect(issues.map((i) => i.path)).toEqual(['seed', 'duration', 'multipliers[0].until', 'multipliers[0].factor']);
  });

  it('accept consistent cross-field values', async () => {
    const yaml = [
      'duration: 20s',
      'clients:',
      '  - { name: a, share: 1, start: 1s, end: 5s }',
      '  - { name: b, rate: 5, mix: [{ kind: put, weight: 1 }] }',
      'multipliers: [{ at: 1s, until: 2s, factor: 2, clients: [b] }]',
      'keys: { count: 1000, popularity: { type: hotspot, keyFraction: 0.001, trafficShare: 0.5 }, hot: [{ key: k, start: 0, rise: 1s, peak: 1, clients: [a] }] }',
      'slo: { latency: [{ percentile: 99, max: 10ms, kind: put, client: b }, { percentile: 50, max: 1ms, kind: get }] }',
      '',
    ].join('\n');

    await expect(parseProfileText(profile(yaml), inline)).resolves.toMatchObject({ duration: 20_000_000 });
  });
});
