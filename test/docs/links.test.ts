import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.ts';
import { docPages } from '../helpers/docs.ts';

/*
 * Every relative link of the README, the docs/ pages and the hand-written pages beside them leads
 * somewhere: the file or folder exists, and a `#anchor` is the GitHub slug of one of the target
 * page's headings. Links to the web are not followed.
 */

/** Hand-written Markdown outside docs/ that links into it or is linked to. */
const OTHER_PAGES = ['BENCHMARKS.md', 'reports/README.md', 'reports/examples/README.md', 'profiles/data/README.md'];

/** The text outside fenced blocks and code spans, each line kept in place (for line numbers). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ' ')).replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, a repeated one numbered as GitHub numbers it (`x`, `x-1`, …). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

function links(file: string, markdown: string): Link[] {
  const text = prose(markdown);
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => ({ file, line: text.slice(0, m.index).split('\n').length, target: m[1]! }))
    .filter((l) => !/^[a-z][a-z+.-]*:/i.test(l.target));
}

/** Why a link leads nowhere, or undefined. */
function broken(link: Link, read: (file: string) => string | undefined): string | undefined {
  const [path, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? link.file : normalize(join(dirname(link.file), decodeURI(path)));
  if (file.startsWith('..')) return 'leaves the repository';
  const target = read(file);
  if (target === undefined && !existsSync(join(repoRoot, file))) return `${file} does not exist`;
  if (anchor === undefined) return undefined;
  if (target === undefined) return `${file} is no Markdown page to hold #${anchor}`;
  return anchors(target).has(anchor) ? undefined : `${file} has no heading whose anchor is #${anchor}`;
}

const pages = [...docPages(), ...OTHER_PAGES.map((file) => ({ file, text: readFileSync(join(repoRoot, file), 'utf8') }))];
const read = (file: string) => (file.endsWith('.md') && existsSync(join(repoRoot, file)) ? readFileSync(join(repoRoot, file), 'utf8') : undefined);

describe('links in the docs', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Where does it stop recovering? `stampede sweep`')).toBe('where-does-it-stop-recovering-stampede-sweep');
    expect(slug('Capacity: qualify, knee, headroom, failover')).toBe('capacity-qualify-knee-headroom-failover');
    expect(slug('TLS and HTTP/2')).toBe('tls-and-http2');
    expect(slug('Where to add …')).toBe('where-to-add-');
    expect([...anchors('# A\n## B\n```\n# not a heading\n```\n## B\n')]).toEqual(['a', 'b', 'b-1']);
  });

  it('finds links, and tells broken ones', () => {
    const page = '# Top\n\nSee [it](#top), [gone](#nowhere), [a file](nothing.md), `[not](a-link.md)` and [web](https://example.com).\n';
    const found = links('docs/x.md', page);
    expect(found.map((l) => l.target)).toEqual(['#top', '#nowhere', 'nothing.md']);
    const why = found.map((l) => broken(l, (f) => (f === 'docs/x.md' ? page : read(f))));
    expect(why).toEqual([undefined, 'docs/x.md has no heading whose anchor is #nowhere', 'docs/nothing.md does not exist']);
  });

  it('every relative link and anchor of the README and docs/ resolves', () => {
    const all = pages.flatMap((page) => links(page.file, page.text));
    // The README links into docs/, and the pages into each other: the test checks links, not nothing.
    expect(all.filter((l) => l.file === 'README.md' && l.target.startsWith('docs/')).length).toBeGreaterThanOrEqual(10);
    expect(all.filter((l) => l.target.includes('#')).length).toBeGreaterThanOrEqual(10);
    const failures = all.flatMap((link) => {
      const why = broken(link, read);
      return why === undefined ? [] : [`${link.file}:${link.line}: (${link.target}) — ${why}`];
    });
    expect(failures).toEqual([]);
  });
});
