import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (bin/stampede.js) in a child process from the repository root. */
export function stampede(args: string[], timeoutMs = 120_000): CliResult {
  const child = spawnSync(process.execPath, ['bin/stampede.js', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: timeoutMs });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}
