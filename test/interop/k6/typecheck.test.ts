import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportK6Script } from '../../../src/interop/k6/export/index.ts';
import { loadProfile } from '../../../src/profile/load.ts';
import { repoRoot } from '../../helpers/cli.ts';
import { EVERY_LAW, STOREFRONT, scratchDir } from './helpers.ts';

/*
 * The exported script type-checks against @types/k6 (the pinned devDependency) under strict
 * TypeScript, as a k6 user's editor and CI would check it: tsc on the script alone, in a folder of
 * its own, with k6's declarations as the only types (no Node, no DOM).
 */

const dir = scratchDir();
writeFileSync(
  join(dir, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      target: 'ES2020',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      strict: true,
      noEmit: true,
      lib: ['ES2020'],
      types: ['k6'],
      typeRoots: [join(repoRoot, 'node_modules/@types')],
    },
    include: ['*.ts'],
  }),
);

function typecheck(scripts: Record<string, string>): { status: number | null; output: string } {
  for (const [name, text] of Object.entries(scripts)) writeFileSync(join(dir, name), text);
  const tsc = spawnSync(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', dir], { encoding: 'utf8', timeout: 120_000 });
  for (const name of Object.keys(scripts)) writeFileSync(join(dir, name), 'export {};\n');
  return { status: tsc.status, output: `${tsc.stdout}${tsc.stderr}` };
}

describe('the exported k6 script', () => {
  it('type-checks against @types/k6 under strict TypeScript', async () => {
    const bluesky = await loadProfile('profiles/bluesky-20k-batch-http.yaml', []);
    const result = typecheck({
      'storefront.ts': exportK6Script(await loadProfile(STOREFRONT, [])),
      'bluesky.ts': exportK6Script(bluesky, { target: 'http://127.0.0.1:8080' }),
      'every-law.ts': exportK6Script(EVERY_LAW),
      // `${AUTH_TOKEN}` in a header: a template literal reading __ENV, and setup() checking it is set.
      'secrets.ts': exportK6Script(await loadProfile('profiles/http-reference.yaml', [])),
    });
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('is checked for real: a script misusing the k6 API fails the same check', async () => {
    const script = exportK6Script(EVERY_LAW).replace('http.request(template.method, BASE_URL + fill(template.path, r, true), body, {', 'http.request(template.method, 42, body, {');
    const result = typecheck({ 'misused.ts': script });
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/misused\.ts.*not assignable to parameter of type 'string \| HttpURL'/);
  });
});
