import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './cli.ts';

/** A page of the documentation: its path from the repository root and its text. */
export interface DocPage {
  file: string;
  text: string;
}

/** The README and every page of docs/, README first: what the tests that read the docs read. */
export function docPages(): DocPage[] {
  const pages = readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...pages].map((file) => ({ file, text: readFileSync(join(repoRoot, file), 'utf8') }));
}

/** One page by its path from the repository root (`docs/ci-and-nightly.md`). */
export function docPage(file: string): DocPage {
  return { file, text: readFileSync(join(repoRoot, file), 'utf8') };
}
