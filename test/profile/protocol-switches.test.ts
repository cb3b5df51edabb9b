import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS } from '../../src/profile/protocols/registry.ts';
import { repoRoot } from '../helpers/cli.ts';

/*
 * The rule that keeps a protocol in its folder: no stage tells protocols apart by name or scheme
 * (`target === 'model'`, `startsWith('memcached')`, `case 'http':`, /^https?:\/\//). Stages ask
 * the protocol's spec instead (src/profile/protocols/). Only the registry, the protocols' folders
 * and their transports (src/driver/<name>/, src/driver/<name>.ts) may name them.
 */

const SRC = join(repoRoot, 'src');
const NAMES = [...new Set(PROTOCOLS.flatMap((p) => [p.name, ...p.schemes]))];
const NAME = `(?:${NAMES.join('|')})`;

/** A comparison with a protocol's name or scheme, a switch case on one, or a test of a target's text against a scheme. */
const SWITCHES: RegExp[] = [
  new RegExp(`[!=]==?\\s*['"\`]${NAME}['"\`]`),
  new RegExp(`['"\`]${NAME}['"\`]\\s*[!=]==?`),
  new RegExp(`\\bcase\\s+['"\`]${NAME}['"\`]\\s*:`),
  new RegExp(`\\.(?:startsWith|endsWith|includes)\\(\\s*['"\`]${NAME}`),
  // A regular expression anchored on a scheme: /^https?:\/\//, /^(?:http|memcached):/.
  new RegExp(`/\\^\\(?(?:\\?:)?${NAME}(?:s\\?)?[:|]`),
];

/** Where a protocol may be named: the registry and each protocol's own folders. */
function mayName(file: string): boolean {
  if (file.startsWith('src/profile/protocols/')) return true;
  return PROTOCOLS.some((p) => file.startsWith(`src/driver/${p.name}/`) || file === `src/driver/${p.name}.ts`);
}

/** Each line of `text` that switches on a protocol. */
function switchesIn(text: string): string[] {
  return text.split('\n').filter((line) => SWITCHES.some((pattern) => pattern.test(line)));
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe('no stage outside a protocol’s folder switches on the protocol', () => {
  it('finds the switches it forbids', () => {
    // The patterns themselves, on the forms they replaced: if one stops matching, the rule below proves nothing.
    const forbidden = [
      "if (target === 'model') return;",
      "const kind = spec.kind !== 'memcached';",
      "if ('http' === report.protocol) {",
      "case 'memcached':",
      "if (profile.target.startsWith('memcached')) return 1;",
      "if (!target.startsWith('https://')) return [];",
      'if (/^https?:\\/\\//i.test(target)) {',
      'if (/^memcached:\\/\\//i.test(target))',
    ];
    expect(forbidden.filter((line) => switchesIn(line).length === 0)).toEqual([]);
    expect(switchesIn("const steps = s.action.kind === 'exec';\nif (kind === 'mapping') return;\nif (/^(http_req_failed|checks)$/.test(m)) {")).toEqual([]);
  });

  it('holds for every file under src/', () => {
    const found = sources(SRC)
      .map((path) => relative(repoRoot, path).split('\\').join('/'))
      .filter((file) => !mayName(file))
      .flatMap((file) => switchesIn(readFileSync(join(repoRoot, file), 'utf8')).map((line) => `${file}: ${line.trim()}`));
    expect(found).toEqual([]);
  });
});
