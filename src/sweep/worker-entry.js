// Under dist/ the worker is compiled JavaScript beside this file. From src/ (development, tests) it is
// TypeScript, and worker threads do not inherit a loader registered through tsx's API, so register it here.
import { existsSync } from 'node:fs';

const compiled = new URL('./worker.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  (await import('tsx/esm/api')).register();
  await import('./worker.ts');
}
