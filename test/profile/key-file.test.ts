import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseProfileText } from '../../src/profile/load.ts';
import type { Profile } from '../../src/profile/types.ts';
import { createSchedule, emptyRequest } from '../../src/schedule/index.ts';
import { profileFromJson, profileToJson } from '../../src/run-folder/profile-json.ts';
import { issuesOf } from './helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-keys-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let files = 0;
/** A profile file in the scratch folder whose keys come from `csv` (written beside it as keys-N.csv). */
async function profileWithKeys(csv: string | undefined, keys = '', seed = 1): Promise<Profile> {
  const name = `keys-${++files}.csv`;
  if (csv !== undefined) writeFileSync(join(scratch, name), csv);
  const text = `name: k\nseed: ${seed}\ntarget: http://127.0.0.1:8080\nphases: [{ type: steady, rate: 1000, duration: 40s }]\nkeys:\n  file: ${name}\n${keys}`;
  return parseProfileText(text, join(scratch, `profile-${files}.yaml`));
}

/** Key name → share of `draws` key draws of the profile's schedule. */
function drawShares(profile: Profile, draws: number): Map<string, number> {
  const schedule = createSchedule(profile);
  const slot = emptyRequest();
  const counts = new Map<string, number>();
  for (let i = 0; i < draws && schedule.next(slot); i++) {
    const name = schedule.plan.keyspace.keyName(slot.keys[0]!);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return new Map([...counts].map(([k, c]) => [k, c / draws]));
}

describe('keys.file: a production key sample', () => {
  it('draws keys in proportion to their weights (seeded, 40,000 draws, within 0.015 of each share); a weight of 0 is never drawn', async () => {
    const profile = await profileWithKeys('key,weight\nuser:a,50\nuser:b,30\n"user:c,with comma",15\nuser:d,5\nuser:e,0\n');
    expect(profile.keys.count).toBe(5);
    const shares = drawShares(profile, 40_000);
    for (const [key, share] of [
      ['user:a', 0.5],
      ['user:b', 0.3],
      ['user:c,with comma', 0.15],
      ['user:d', 0.05],
    ] as const)
      expect([key, Math.abs(shares.get(key)! - share)]).toEqual([key, expect.closeTo(0, 1.5)]);
    for (const [key, share] of shares) expect([key, share]).not.toEqual(['user:e', expect.anything()]);
    expect([...shares.keys()].sort()).toEqual(['user:a', 'user:b', 'user:c,with comma', 'user:d']);
  });

  it('is deterministic for a seed and differs for another', async () => {
    const csv = 'k1,5\nk2,3\nk3,2\n';
    const sequence = async (seed: number) => {
      const schedule = createSchedule(await profileWithKeys(csv, '', seed));
      const slot = emptyRequest();
      return Array.from({ length: 200 }, () => (schedule.next(slot), slot.keys[0]));
    };
    expect(await sequence(7)).toEqual(await sequence(7));
    expect(await sequence(7)).not.toEqual(await sequence(8));
  });

  it('ranks keys by weight, so id 0 is the most popular (the model warms caches by rank); hot keys still overlay them', async () => {
    const profile = await profileWithKeys('light,1\nheavy,9\n', '  hot:\n    - { key: viral, start: 0s, rise: 1ms, peak: 0.5 }\n');
    expect(profile.keys.sample!.keys).toEqual(['heavy', 'light']);
    const shares = drawShares(profile, 40_000);
    expect(shares.get('viral')).toBeCloseTo(0.5, 1);
    expect(shares.get('heavy')).toBeCloseTo(0.45, 1);
    expect(shares.get('light')).toBeCloseTo(0.05, 1);
  });

  it('without weights, the popularity law ranks the keys in file order', async () => {
    const keys = Array.from({ length: 100 }, (_, i) => `k${i}`).join('\n');
    const profile = await profileWithKeys(`key\n${keys}\n`, '  popularity: { type: zipf, s: 1.2 }\n');
    expect(profile.keys.sample!.cumulative).toBeUndefined();
    const shares = drawShares(profile, 20_000);
    expect(shares.get('k0')!).toBeGreaterThan(shares.get('k1')!);
    expect(shares.get('k1')!).toBeGreaterThan(shares.get('k9') ?? 0);
  });

  it('writes the sample into profile.json as its summary, not its keys; the fingerprint follows the file', async () => {
    const first = await profileWithKeys('a,1\nb,2\n');
    const stored = profileFromJson(profileToJson(first));
    expect(stored.keys.sample).toEqual({ path: join(scratch, `keys-${files}.csv`), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), count: 2, weighted: true });
    const other = await profileWithKeys('a,1\nb,3\n');
    expect(other.source.sha256).not.toBe(first.source.sha256);
  });
});

describe('keys.file errors name the CSV, its line and field', () => {
  const problems = async (csv: string | undefined, keys = '') =>
    (await issuesOf(profileWithKeys(csv, keys))).map((i) => `${i.file.slice(scratch.length + 1)}:${i.line}:${i.column} ${i.path}: ${i.message}`);

  it('a bad weight, an empty key, a repeated key', async () => {
    expect(await problems('key,weight\nalpha,3\nbeta,lots\n,2\nalpha,1\ngamma,-1\n')).toEqual([
      `keys-${files}.csv:3:6 weight: expected a number ≥ 0, got "lots"`,
      `keys-${files}.csv:4:1 key: expected a key, got an empty field`,
      `keys-${files}.csv:5:1 key: key "alpha" is listed again (first on line 2)`,
      `keys-${files}.csv:6:7 weight: expected a number ≥ 0, got "-1"`,
    ]);
  });

  it('a missing weight in a weighted file, and every weight 0', async () => {
    expect(await problems('a,1\nb\n')).toEqual([`keys-${files}.csv:2:1 weight: expected a number ≥ 0, got ""`]);
    expect(await problems('a,0\nb,0\n')).toEqual([`keys-${files}.csv:0:0 weight: every weight is 0: no key could be drawn`]);
  });

  it('a CSV the parser cannot read, an empty file', async () => {
    const [unclosed] = await problems('a,1\n"b,2\n');
    expect(unclosed).toMatch(new RegExp(`^keys-${files}\\.csv:\\d+:0 : CSV: .*quote`, 'i'));
    expect(await problems('')).toEqual([`keys-${files}.csv:0:0 : the key file lists no keys`]);
  });

  it('a missing file, weights beside a popularity, a count or prefix beside the file: at the profile’s own fields', async () => {
    expect(await problems(undefined)).toEqual([`profile-${files}.yaml:6:9 keys.file: cannot read key file "${join(scratch, `keys-${files}.csv`)}": no such file`]);
    expect(await problems('a,1\n', '  popularity: { type: uniform }\n')).toEqual([
      `profile-${files}.yaml:7:15 keys.popularity: the key file "${join(scratch, `keys-${files}.csv`)}" has weights: they are the popularity`,
    ]);
    expect(await problems('a,1\n', '  count: 10\n  prefix: "x:"\n')).toEqual([
      `profile-${files}.yaml:7:10 keys.count: expected no count beside keys.file (the file's keys are the keyspace)`,
      `profile-${files}.yaml:8:11 keys.prefix: expected no prefix beside keys.file (the file's keys are the keyspace)`,
    ]);
  });

  it('a prefix a --set writes beside the file, named with its --set (the parsed default prefix is not one)', async () => {
    const name = `keys-${++files}.csv`;
    writeFileSync(join(scratch, name), 'a,1\n');
    const text = `name: k\ntarget: http://127.0.0.1:8080\nphases: [{ type: steady, rate: 1000, duration: 40s }]\nkeys:\n  file: ${name}\n`;
    const issues = await issuesOf(parseProfileText(text, join(scratch, `profile-${files}.yaml`), ['keys.prefix=user-']));

    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "keys.prefix: expected no prefix beside keys.file (the file's keys are the keyspace) (from --set keys.prefix=user-)",
    ]);
  });
});
