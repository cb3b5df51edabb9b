import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { exportK6Script } from '../../../src/interop/k6/export/index.ts';
import { type LoadedScript, loadK6Script } from '../../../src/interop/k6/stand-in/load.ts';
import type { Profile } from '../../../src/profile/types.ts';
import { makeProfile } from '../../helpers/profile.ts';

export const STOREFRONT = 'test/fixtures/k6/storefront.yaml';

/** A scratch folder removed after the file's tests. */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stampede-k6-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The profile exported to `dir`/`name`, and loaded against the stand-in k6 modules. */
export async function exported(profile: Profile, dir: string, name = 'script.ts'): Promise<{ file: string; script: LoadedScript }> {
  const file = join(dir, name);
  writeFileSync(file, exportK6Script(profile, { source: profile.source.file }));
  return { file, script: await loadK6Script(file) };
}

/** Every law the runtime has a branch for: uniform and hotspot keys, hot keys per client, every distribution kind, a template per placeholder. */
export const EVERY_LAW: Profile = makeProfile({
  name: 'every-law',
  phases: [{ type: 'steady', rate: 10, duration: '30s' }],
  keys: { count: 1000, popularity: { type: 'hotspot', keyFraction: 0.1, trafficShare: 0.9 }, hot: [{ key: 'k', start: '1s', rise: '1s', peak: 0.2, clients: ['a'] }] },
  mix: [
    { kind: 'get', weight: 1, batch: { type: 'exponential', mean: 4, max: 100 } },
    { kind: 'set', weight: 1, valueSize: { type: 'empirical', values: [{ value: 10, weight: 1 }] } },
  ],
  valueSize: {
    type: 'mixture',
    of: [
      { type: 'fixed', value: 5, weight: 1 },
      { type: 'uniform', min: 1, max: 9, weight: 1 },
    ],
  },
  clients: [
    { name: 'a', share: 1 },
    { name: 'b', share: 1, arrivals: 'constant' },
  ],
  target: 'http://127.0.0.1:8080',
  http: {
    requests: {
      set: { method: 'PUT', path: '/{{kind}}/{{key}}?n={{batch}}&seq={{seq}}', headers: { 'x-client': '{{client}}' }, body: '{{keys}} {{value}} {{valueSize}} {{keys:json}}' },
    },
  },
});
