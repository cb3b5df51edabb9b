import { ProfileError, type PathIssue } from './issues.ts';
import { protocolOf, type TargetSpec } from './protocols/registry.ts';
import type { Profile } from './types.ts';

/*
 * Keys a memcached server takes: at most 250 bytes (its KEY_MAX_LENGTH), no space and no control
 * character (the text protocol's delimiters; clients such as libmemcached refuse them for the binary
 * protocol too). A key that breaks either is answered with an error and a closed connection, each time
 * it is drawn: a run of them measures reconnects, not the cache. So the keys a profile can send are
 * checked when it loads, each issue placed where the key is written (keys.prefix, keys.hot[i].key, the
 * line of keys.file), and a memcached target refuses the profile with them before any traffic; an
 * http target sends the same keys URL-encoded, and the model sends none.
 */

export const MEMCACHED_KEY_MAX_BYTES = 250;

/** Whitespace and control characters, anywhere in a key. */
const FORBIDDEN = /[\s\p{Cc}]/u;

/** The rule, for hints: each says what to change, then this. */
export const MEMCACHED_KEY_RULE = `a memcached target takes keys of at most ${MEMCACHED_KEY_MAX_BYTES} bytes (UTF-8) with no space or control character`;

/** What a memcached server would refuse in `key`, or undefined when it takes it. */
export function memcachedKeyProblem(key: string): string | undefined {
  return characterProblem(key) ?? lengthProblem(key);
}

function lengthProblem(key: string): string | undefined {
  const bytes = Buffer.byteLength(key, 'utf8');
  return bytes > MEMCACHED_KEY_MAX_BYTES ? `is ${bytes} bytes, over memcached's ${MEMCACHED_KEY_MAX_BYTES}` : undefined;
}

function characterProblem(text: string): string | undefined {
  const forbidden = FORBIDDEN.exec(text)?.[0];
  if (forbidden === undefined) return undefined;
  const named = forbidden === ' ' ? 'a space' : `U+${forbidden.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} (a space or control character)`;
  return `holds ${named}, which memcached keys cannot`;
}

/** A key shown in a message: the first 40 characters, enough to find it. */
export function shownKey(key: string): string {
  const characters = [...key];
  return JSON.stringify(characters.length > 40 ? `${characters.slice(0, 40).join('')}…` : key);
}

/**
 * The generated keys' problems: `prefix + id` for ids below `count` (the longest is the largest id
 * the schedule can draw, count − 1) and each hot key. Keys of a key file are checked as it is read.
 */
export function generatedKeyIssues(keys: { prefix: string; count: number; hot: readonly { key: string }[] }, fromFile: boolean): PathIssue[] {
  const issues: PathIssue[] = [];
  if (!fromFile) {
    const largest = Math.max(0, keys.count - 1);
    const longest = `${keys.prefix}${largest}`;
    const characters = characterProblem(keys.prefix);
    const length = lengthProblem(longest);
    if (characters !== undefined)
      issues.push({
        path: ['keys', 'prefix'],
        message: `${shownKey(keys.prefix)} ${characters}, and every generated key starts with it`,
        hint: `take it out of keys.prefix: ${MEMCACHED_KEY_RULE}`,
      });
    else if (length !== undefined)
      issues.push({
        path: ['keys', 'prefix'],
        message: `the longest generated key, ${shownKey(longest)} (keys.prefix + the largest index ${largest}), ${length}`,
        hint: `shorten keys.prefix or lower keys.count: ${MEMCACHED_KEY_RULE}`,
      });
  }
  keys.hot.forEach((hot, i) => {
    const problem = memcachedKeyProblem(hot.key);
    if (problem !== undefined)
      issues.push({ path: ['keys', 'hot', i, 'key'], message: `hot key ${shownKey(hot.key)} ${problem}`, hint: `rename the hot key: ${MEMCACHED_KEY_RULE}` });
  });
  return issues;
}

/** Refuses, before any traffic, a profile whose keys `target` would refuse (a memcached one). @throws ProfileError naming each key's file, line and field */
export function requireMemcachedKeysFor(profile: Profile, target: TargetSpec): void {
  const issues = profile.source.memcachedKeyIssues;
  if (issues === undefined || issues.length === 0 || !protocolOf(target).refusesUnfitKeys) return;
  throw new ProfileError(profile.source.file, issues);
}
