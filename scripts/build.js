// npm run build: src/ → dist/ (tsc rewrites the .ts import extensions to .js), plus the JavaScript the
// compiler does not copy (the worker bootstraps). dist/ is emptied first so no module outlives its source.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { extname } from 'node:path';

rmSync('dist', { recursive: true, force: true });
const tsc = spawnSync('tsc', ['-p', 'tsconfig.build.json'], { stdio: 'inherit', shell: process.platform === 'win32' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
const ASSETS = new Set(['.js', '.mjs']);
cpSync('src', 'dist', { recursive: true, filter: (path) => !extname(path) || ASSETS.has(extname(path)) });
