import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exit-codes.ts';
import { PROTOCOLS } from '../../src/profile/protocols/registry.ts';
import { repoRoot } from '../helpers/cli.ts';

/*
 * The README is a way in, not the reference: at most 20 KB, its quick start first (the command that
 * runs the main job on the model, then the test command CI runs), its first paragraph naming every
 * protocol stampede can load, and a map with one line for every page of docs/.
 */

const README = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const MAX_BYTES = 20 * 1024;

describe('the README', () => {
  it(`is at most ${MAX_BYTES} bytes`, () => {
    expect(statSync(join(repoRoot, 'README.md')).size).toBeLessThanOrEqual(MAX_BYTES);
  });

  it('opens with the quick start: the main job on the model, then the test command CI runs', () => {
    const headings = [...README.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings[0]).toBe('Quick start');
    const blocks = [...README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.trim());
    expect(blocks.slice(0, 2)).toEqual(['npm ci && npx stampede run profiles/steady-peak.yaml', 'npm ci && npm test']);
    const ci = readFileSync(join(repoRoot, '.ci/run'), 'utf8');
    expect(ci.split('\n')).toContain(blocks[1]);
  });

  it('says in its first paragraph which real protocols it drives', () => {
    const first = README.split('\n\n')[1]!;
    expect(first).not.toMatch(/later versions|come later/);
    for (const protocol of PROTOCOLS.filter((p) => p.schemes.length > 0)) expect(first.toLowerCase(), protocol.name).toContain(protocol.name);
  });

  it('names every exit code the CLI has (docs/commands.md has the table)', () => {
    const commands = README.slice(README.indexOf('## Commands'), README.indexOf('## The docs'));
    for (const code of Object.values(ExitCode)) expect(commands, `exit code ${code}`).toContain(`\`${code}\``);
  });

  it('draws the pipeline as docs/architecture.md does', () => {
    const diagram = (text: string) => /^```\n(profile\.yaml[\s\S]*?)^```$/m.exec(text)?.[1];
    expect(diagram(README)).toBeDefined();
    expect(diagram(README)).toBe(diagram(readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8')));
  });

  it('maps every page of docs/, one line each', () => {
    const pages = readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md'));
    expect(pages.length).toBeGreaterThanOrEqual(10);
    for (const page of pages)
      expect(
        README.split('\n').filter((line) => line.startsWith('| [') && line.includes(`](docs/${page})`)),
        page,
      ).toHaveLength(1);
  });
});
