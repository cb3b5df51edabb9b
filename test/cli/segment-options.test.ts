import { describe, expect, it } from 'vitest';
import { CommandLineError } from '../../src/cli/errors.ts';
import { joinDashedValues } from '../../src/cli/options.ts';
import { segmentOption, startAtOption } from '../../src/cli/segment-options.ts';

describe('--segment', () => {
  it('reads i/N, and index/N from a Kubernetes Indexed Job’s JOB_COMPLETION_INDEX', () => {
    expect(segmentOption('2/3', {})).toEqual({ index: 2, count: 3 });
    expect(segmentOption('index/4', { JOB_COMPLETION_INDEX: '3' })).toEqual({ index: 3, count: 4 });
  });

  it.each([
    ['3/3', {}, /segment 3 of 3 does not exist/],
    ['1', {}, /expected i\/N/],
    ['0/0', {}, /expected 1 to 1000 segments/],
    ['-1/3', {}, /segment -1 of 3 does not exist \(segments are numbered from 0: 0 to 2\)/],
    ['1/-3', {}, /expected 1 to 1000 segments, got -3/],
    ['index/3', {}, /JOB_COMPLETION_INDEX, which is not set/],
    ['index/3', { JOB_COMPLETION_INDEX: 'x' }, /is not a whole number/],
  ])('refuses %s', (text, env, message) => {
    expect(() => segmentOption(text, env)).toThrow(CommandLineError);
    expect(() => segmentOption(text, env)).toThrow(message);
  });
});

describe('a value that starts with "-" and a digit', () => {
  it('is the value of the option before it (yargs would read it as short options), unless that option is a flag', () => {
    const takesValue = new Set(['segment', 'seed']);
    expect(joinDashedValues(['run', 'p.yaml', '--segment', '-1/3', '--seed', '-2'], takesValue)).toEqual(['run', 'p.yaml', '--segment=-1/3', '--seed=-2']);
    expect(joinDashedValues(['run', 'p.yaml', '--quiet', '-1', '--segment', '-x'], takesValue)).toEqual(['run', 'p.yaml', '--quiet', '-1', '--segment', '-x']);
  });
});

describe('--start-at', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('takes a UTC instant, also one a moment ago', () => {
    expect(startAtOption('2026-03-01T12:01:00Z', now)).toBe(now + 60_000);
    expect(startAtOption('2026-03-01T13:01:00+01:00', now)).toBe(now + 60_000);
    expect(startAtOption('2026-03-01T11:59:58Z', now)).toBe(now - 2000);
  });

  it('refuses a time without a zone, and one the hosts can no longer share', () => {
    expect(() => startAtOption('2026-03-01T12:01:00', now)).toThrow(/expected an ISO 8601 UTC time/);
    expect(() => startAtOption('tomorrow', now)).toThrow(/expected an ISO 8601 UTC time/);
    expect(() => startAtOption('2026-03-01T11:59:00Z', now)).toThrow(/60\.0 s in the past/);
    expect(startAtOption('2026-03-02T11:59:00Z', now)).toBe(now + 24 * 3600_000 - 60_000);
    expect(() => startAtOption('2026-03-02T12:01:00Z', now)).toThrow(/24\.0 h ahead, more than 24 h/);
    expect(() => startAtOption('9999-12-31T00:00:00Z', now)).toThrow(/h ahead, more than 24 h/);
  });
});
