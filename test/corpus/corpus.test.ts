import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { CORPUS, PROFILE_CASES } from './cases.ts';
import { materialize, NEVER } from './materialize.ts';

/*
 * Every corpus case through main(argv) in this process: the same parser, commands and error
 * mapping as the CLI, without a process start per case. test/cli/corpus.test.ts spawns a subset.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-corpus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** Longest one case may take; a case still running then is a hang. */
const CASE_LIMIT_MS = 20_000;

async function runInProcess(argv: string[]): Promise<{ code: number | 'hang'; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), CASE_LIMIT_MS)));
  try {
    const code = await Promise.race([main(argv), hang]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

describe('the bad-input corpus, in-process through main(argv)', () => {
  it('holds at least 60 cases, of which at least 60 broken profiles and topologies or command lines each with a message', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
    expect(PROFILE_CASES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(CORPUS.map((c) => c.name)).size).toBe(CORPUS.length);
  });

  it.each(CORPUS.map((c, i) => [c.name, c, i] as const))('%s', async (_, c, index) => {
    vi.stubEnv('STAMPEDE_DEBUG', undefined);
    vi.stubEnv('STAMPEDE_ALLOW_REMOTE', c.env?.STAMPEDE_ALLOW_REMOTE);
    const { argv, out } = materialize(c, scratch, index);
    const result = await runInProcess(argv);
    expect(result.code).toBe(c.exit);
    expect(result.stderr).toContain(c.stderr);
    expect(result.stderr).not.toMatch(NEVER);
    expect(result.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });
});
