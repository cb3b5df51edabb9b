import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/profile/protocols/registry.ts';
import { parseProfileText } from '../../src/profile/load.ts';
import { memcachedKeyProblem, requireMemcachedKeysFor } from '../../src/profile/memcached-keys.ts';
import { ProfileError } from '../../src/profile/issues.ts';
import { profileFromJson, profileToJson } from '../../src/run-folder/profile-json.ts';

/* Keys a memcached server refuses are found when the profile loads, each where it is written, and refused by a memcached target only. */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-memcached-keys-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PROFILE = 'name: k\nphases: [{ type: steady, rate: 10, duration: 1s }]\n';

function refusal(run: () => void): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ProfileError);
    return (error as ProfileError).issues.map((i) => `${i.file.slice(scratch.length + 1)}:${i.line}:${i.column} ${i.path}: ${i.message}`);
  }
  return [];
}

describe('memcached keys', () => {
  it('are at most 250 bytes of UTF-8, with no space or control character', () => {
    expect(memcachedKeyProblem('k'.repeat(250))).toBeUndefined();
    expect(memcachedKeyProblem('k'.repeat(251))).toBe("is 251 bytes, over memcached's 250");
    // 125 two-byte characters are 250 bytes; one more is over.
    expect(memcachedKeyProblem('é'.repeat(125))).toBeUndefined();
    expect(memcachedKeyProblem('é'.repeat(126))).toBe("is 252 bytes, over memcached's 250");
    expect(memcachedKeyProblem('user 1')).toBe('holds a space, which memcached keys cannot');
    expect(memcachedKeyProblem('user\t1')).toBe('holds U+0009 (a space or control character), which memcached keys cannot');
    expect(memcachedKeyProblem('user\u007f')).toBe('holds U+007F (a space or control character), which memcached keys cannot');
    expect(memcachedKeyProblem('at://post/3k2z:ü')).toBeUndefined();
  });

  it('from a key file: refused on a memcached target naming the CSV line; an http target and the model take them', async () => {
    writeFileSync(join(scratch, 'keys.csv'), `key,weight\nuser:1,5\n${'u'.repeat(300)},2\n"a b",1\nuser:2,1\n`);
    const profile = await parseProfileText(`${PROFILE}keys: { file: keys.csv }\n`, join(scratch, 'file.yaml'));
    expect(refusal(() => requireMemcachedKeysFor(profile, parseTarget('memcached://127.0.0.1:11211')))).toEqual([
      `keys.csv:3:1 key: key "${'u'.repeat(40)}…" is 300 bytes, over memcached's 250`,
      'keys.csv:4:1 key: key "a b" holds a space, which memcached keys cannot',
    ]);
    expect(refusal(() => requireMemcachedKeysFor(profile, parseTarget('http://127.0.0.1:8080')))).toEqual([]);
    expect(refusal(() => requireMemcachedKeysFor(profile, parseTarget('model')))).toEqual([]);
    // The run folder keeps the profile, not where its unfit keys are.
    expect(profileFromJson(profileToJson(profile)).source.memcachedKeyIssues).toBeUndefined();
  });

  it('generated: keys.prefix plus the largest index the schedule draws (count − 1), and each hot key, at their lines', async () => {
    const fits = await parseProfileText(`${PROFILE}keys: { count: 1000, prefix: "${'p'.repeat(247)}" }\n`, join(scratch, 'fits.yaml'));
    expect(fits.source.memcachedKeyIssues).toBeUndefined();
    const text = `${PROFILE}keys:\n  count: 1001\n  prefix: "${'p'.repeat(247)}"\n  hot:\n    - { key: "hot\\tkey", start: 0s, rise: 1s, peak: 0.1 }\n`;
    const over = await parseProfileText(text, join(scratch, 'over.yaml'));
    expect(refusal(() => requireMemcachedKeysFor(over, parseTarget('memcached://127.0.0.1:11211')))).toEqual([
      `over.yaml:5:11 keys.prefix: the longest generated key, "${'p'.repeat(40)}…" (keys.prefix + the largest index 1000), is 251 bytes, over memcached's 250`,
      'over.yaml:7:14 keys.hot[0].key: hot key "hot\\tkey" holds U+0009 (a space or control character), which memcached keys cannot',
    ]);
    const spaced = await parseProfileText(`${PROFILE}keys: { count: 10 }\n`, join(scratch, 'spaced.yaml'), ['keys.prefix="user key:"']);
    expect(refusal(() => requireMemcachedKeysFor(spaced, parseTarget('memcached://127.0.0.1:11211')))).toEqual([
      'spaced.yaml:3:7 keys.prefix: "user key:" holds a space, which memcached keys cannot, and every generated key starts with it (from --set keys.prefix="user key:")',
    ]);
  });
});
