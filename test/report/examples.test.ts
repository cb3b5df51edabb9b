import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_NAMES } from '../../scripts/examples.ts';
import { repoRoot } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-examples-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function files(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(root, path));
    }
  };
  walk(root);
  return out;
}

/** Builds some of the examples in a child process (two run side by side: the model is single-threaded). */
function build(names: readonly string[], out: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/build-examples.ts', '--out', out, ...names], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build-examples exited ${code}: ${stderr}`))));
  });
}

describe('reports/examples', () => {
  it('are what the current code produces for the incident profiles and the nightly reports (run `npm run examples` to refresh)', async () => {
    const half = Math.ceil(EXAMPLE_NAMES.length / 2);
    await Promise.all([build(EXAMPLE_NAMES.slice(0, half), scratch), build(EXAMPLE_NAMES.slice(half), scratch)]);
    const committed = join(repoRoot, 'reports/examples');
    const expected = files(scratch);
    expect(files(committed).filter((f) => f !== 'README.md')).toEqual(expected);
    const stale = expected.filter((f) => readFileSync(join(scratch, f), 'utf8') !== readFileSync(join(committed, f), 'utf8'));
    expect(stale, `stale examples: ${stale.join(', ')} — run npm run examples`).toEqual([]);
  }, 300_000);
});

describe('reports/examples/nightly', () => {
  const nightly = join(repoRoot, 'reports/examples/nightly');

  it('compare.md catches the planted regression that the night’s own verdict lets through', () => {
    expect(readFileSync(join(nightly, 'compare.md'), 'utf8')).toMatch(/^# compare: REGRESSED \(capacity\b/);
    const planted = JSON.parse(readFileSync(join(nightly, '2026-01-04', 'qualification.json'), 'utf8'));
    expect(planted.profile.overrides).toContain('topology.caches.tweet-cache.shards=14');
    expect(planted.verdict).toBe('PASS');
  });

  it('history.md marks only the planted night as regressed against the night before', () => {
    const rows = readFileSync(join(nightly, 'history.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('| 2026-'));
    expect(rows.map((r) => [r.split('|')[1]!.trim(), r.includes('REGRESSED')])).toEqual([
      ['2026-01-01', false],
      ['2026-01-02', false],
      ['2026-01-03', false],
      ['2026-01-04', true],
    ]);
  });
});
