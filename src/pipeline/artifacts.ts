import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '../recorder/result.ts';

/** reports/<profile>/<UTC timestamp>/ — sortable, and valid on every file system. */
export function defaultRunDir(root: string, profileName: string, startedAt: Date): string {
  const stamp = startedAt.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  return join(root, profileName, stamp);
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function writeRunArtifacts(dir: string, result: RunResult, summary: string): void {
  writeFileSync(join(dir, 'result.json'), JSON.stringify(result, null, 2) + '\n');
  writeFileSync(join(dir, 'summary.md'), summary);
}
