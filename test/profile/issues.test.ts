import { describe, expect, it } from 'vitest';
import { ProfileError, formatProfileError, loadProfile, parseProfileText } from '../../src/profile/index.ts';
import { INLINE_TOPOLOGY, fixture, issueAt, issuesOf } from './helpers.ts';

const inline = fixture('inline.yaml');
const withPhases = (rest: string): string => `name: t\nphases:\n  - { type: steady, rate: 100, duration: 10s }\n${rest}${INLINE_TOPOLOGY}`;

describe('every problem at once', () => {
  it('reports all problems of a broken profile with file, line, column and path', async () => {
    const file = fixture('broken.yaml');
    const issues = await issuesOf(loadProfile(file));

    const located = issues.map(({ file, line, column, path }) => ({ file, line, column, path }));
    expect(located).toEqual([
      { file, line: 2, column: 11, path: 'duration' },
      { file, line: 5, column: 11, path: 'phases[0].rate' },
      { file, line: 7, column: 11, path: 'phases[1].type' },
      { file, line: 10, column: 5, path: 'phases[2].to' },
      { file, line: 12, column: 5, path: 'phases[2].rat' },
      { file, line: 17, column: 11, path: 'clients[1].name' },
      { file, line: 22, column: 12, path: 'slo.latency[0].max' },
      { file, line: 23, column: 15, path: 'slo.latency[0].client' },
    ]);
    expect(issueAt(issues, 'phases[0].rate')).toMatchObject({ message: 'expected a number ≥ 0, got "fast"', hint: 'requests per second, e.g. 1000' });
    expect(issueAt(issues, 'phases[2].to').message).toBe('missing required field "to": expected a number ≥ 0');
    expect(issueAt(issues, 'slo.latency[0].max')).toMatchObject({
      message: 'expected a duration like "500ms", "30s" or "2m", got "soon"',
      hint: 'write a duration like "500ms", "30s" or "2m"',
    });
    expect(issueAt(issues, 'clients[1].name').message).toBe('duplicate client name "web" (also clients[0])');
    expect(issueAt(issues, 'duration').message).toBe('expected duration ≥ the sum of the phase durations (70s), got "10s"');
    expect(issueAt(issues, 'slo.latency[0].client')).toMatchObject({ message: 'expected the name of a client, got "mobile"', hint: 'clients are: web' });
    for (const issue of issues) expect(issue.hint).not.toBe('');
  });

  it('names an unknown field at its key and suggests the closest allowed one', async () => {
    const text = `name: t\nphases:\n  - type: steady\n    rat: 100\n    duration: 10s\n${INLINE_TOPOLOGY}`;
    const issues = await issuesOf(parseProfileText(text, inline));

    expect(issueAt(issues, 'phases[0].rat')).toEqual({
      file: inline,
      line: 4,
      column: 5,
      path: 'phases[0].rat',
      message: 'unknown field "rat"',
      hint: 'did you mean "rate"? allowed: type, rate, duration',
    });
    // The required `rate` is missing too; it points at the phase's mapping.
    expect(issueAt(issues, 'phases[0].rate')).toMatchObject({ line: 3, column: 5 });
  });

  it('refuses the replaced flushOnRejoin at its key, naming what replaces it', async () => {
    const text = `name: t\nphases:\n  - { type: steady, rate: 100, duration: 10s }\n${INLINE_TOPOLOGY}  caches:\n    c:\n      flushOnRejoin: true\n`;
    const issues = await issuesOf(parseProfileText(text, inline));

    expect(issues).toEqual([
      expect.objectContaining({
        file: inline,
        line: 12,
        column: 7,
        path: 'topology.caches.c.flushOnRejoin',
        message: 'unknown field "flushOnRejoin"',
        hint: expect.stringContaining('replaced by `rejoin: { membership: cold }`'),
      }),
    ]);
  });

  it('removeShards takes a count or named shards, within the cache’s slots', async () => {
    const removal = (fields: string) =>
      `name: t\nphases:\n  - { type: steady, rate: 100, duration: 10s }\n${INLINE_TOPOLOGY}  caches:\n    c: { shards: 4 }\n  timeline:\n    - { type: removeShards, at: 1s, cache: c, ${fields} }\n`;
    const both = await issuesOf(parseProfileText(removal('count: 1, shards: 2'), inline));
    expect(both).toEqual([expect.objectContaining({ line: 13, path: 'topology.timeline[0]', message: 'expected exactly one of `count` or `shards`' })]);
    const beyond = await issuesOf(parseProfileText(removal('shards: [1, 7]'), inline));
    expect(beyond).toEqual([
      expect.objectContaining({ line: 13, path: 'topology.timeline[0].shards', message: '"c" has shard slots 0–3 (its shards and those addShards adds), got 7' }),
    ]);
    const all = await issuesOf(parseProfileText(removal('shards: "0-3"'), inline));
    expect(all).toEqual([expect.objectContaining({ path: 'topology.timeline[0].shards', message: 'a cache keeps at least one shard; "c" has 4' })]);
  });

  it('lists the allowed top-level fields for an unknown top-level key', async () => {
    const issues = await issuesOf(parseProfileText(withPhases('wormup: 10s\n'), inline));

    expect(issueAt(issues, 'wormup')).toMatchObject({ line: 4, column: 1, hint: expect.stringMatching(/^did you mean "warmup"\? allowed: name, description, seed, warmup, /) });
  });

  it('explains a bad discriminator and what each variant needs', async () => {
    const text = `name: t\nphases:\n  - { type: plateau, rate: 100, duration: 10s }\n${INLINE_TOPOLOGY}`;
    const issues = await issuesOf(parseProfileText(text, inline));

    expect(issues).toEqual([
      {
        file: inline,
        line: 3,
        column: 13,
        path: 'phases[0].type',
        message: 'expected type to be one of steady | ramp | step | spike, got "plateau"',
        hint: 'steady needs rate, duration; ramp needs from, to, duration; step needs from, to, steps, duration; spike needs base, peak, rise, hold, decay',
      },
    ]);
  });

  it('narrows a distribution to the variant that was meant', async () => {
    const issues = await issuesOf(parseProfileText(withPhases('batch: { type: uniform, min: 1, max: many }\nvalueSize: big\n'), inline));

    expect(issueAt(issues, 'batch.max').message).toBe('expected a number ≥ 0, got "many"');
    expect(issueAt(issues, 'valueSize')).toMatchObject({
      message: expect.stringMatching(/^expected a number ≥ 0 or a distribution \{type: fixed \| uniform/),
      hint: 'write a single number, or a distribution such as {type: uniform, min: 1, max: 50}',
    });
  });

  it('turns YAML syntax errors into issues with line and column', async () => {
    const file = fixture('syntax-error.yaml');
    const issues = await issuesOf(loadProfile(file));

    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]).toMatchObject({ file, line: 5, column: 1, path: '', message: expect.stringMatching(/^YAML syntax error: /) });
    expect(issues[0]!.hint).not.toBe('');
  });

  it('reports duplicate keys as syntax errors', async () => {
    const issues = await issuesOf(parseProfileText(withPhases('name: again\n'), inline));

    expect(issues).toEqual([expect.objectContaining({ line: 4, message: 'YAML syntax error: Map keys must be unique' })]);
  });

  it('names the topology file in issues found inside it', async () => {
    const issues = await issuesOf(loadProfile(fixture('with-bad-topology-file.yaml')));

    expect(issues).toEqual([expect.objectContaining({ file: fixture('topology-list.yaml'), line: 1, column: 1, path: 'topology', message: 'expected a mapping, got a list' })]);
  });

  it('reports a document that is not a mapping', async () => {
    const issues = await issuesOf(parseProfileText('- just\n- a list\n', inline));

    expect(issues).toEqual([expect.objectContaining({ line: 1, column: 1, path: '', message: 'expected a mapping, got a list' })]);
  });
});

describe('formatProfileError', () => {
  it('renders file:line:col, path, message and an indented hint', async () => {
    const text = `name: t\nphases:\n  - { type: steady, rate: fast, duration: 10s }\n${INLINE_TOPOLOGY}`;
    const error = await parseProfileText(text, 'profiles/x.yaml').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProfileError);
    expect(formatProfileError(error as ProfileError)).toBe('profiles/x.yaml:3:27  phases[0].rate: expected a number ≥ 0, got "fast"\n    hint: requests per second, e.g. 1000');
  });
});
