import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The CLI from the TypeScript sources (tsx), so tests see src/ as it is rather than the last build;
 * test/package/ checks the compiled bin from a packed tarball.
 */
export const CLI_ENTRY = 'scripts/stampede-dev.js';

/** Runs the real CLI in a child process from the repository root (with `env` added to this process's environment). */
export function stampede(args: string[], timeoutMs = 120_000, env: Record<string, string> = {}): CliResult {
  const child = spawnSync(process.execPath, [CLI_ENTRY, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, ...env } });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/**
 * The real CLI in a child process that does not block this one (a target served by the test keeps
 * answering); killed by its pid after `timeoutMs`.
 */
export function stampedeAsync(args: string[], timeoutMs = 120_000, env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}
