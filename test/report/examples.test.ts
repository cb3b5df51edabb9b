import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_PROFILES } from '../../scripts/examples.ts';
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
  it('are what the current code produces for the incident profiles (run `npm run examples` to refresh)', async () => {
    const half = Math.ceil(EXAMPLE_PROFILES.length / 2);
    await Promise.all([build(EXAMPLE_PROFILES.slice(0, half), scratch), build(EXAMPLE_PROFILES.slice(half), scratch)]);
    const committed = join(repoRoot, 'reports/examples');
    const expected = files(scratch);
    expect(files(committed).filter((f) => f !== 'README.md')).toEqual(expected);
    const stale = expected.filter((f) => readFileSync(join(scratch, f), 'utf8') !== readFileSync(join(committed, f), 'utf8'));
    expect(stale, `stale examples: ${stale.join(', ')} — run npm run examples`).toEqual([]);
  }, 300_000);
});
