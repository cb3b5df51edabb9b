import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusCase } from './cases.ts';

/** A case's argv with its placeholders filled: {out} a folder that must stay absent, {empty} an empty folder. */
export function materialize(c: CorpusCase, scratch: string, index: number): { argv: string[]; out: string } {
  const out = join(scratch, `out-${index}`);
  const empty = join(scratch, 'empty');
  mkdirSync(empty, { recursive: true });
  return { argv: c.argv.map((a) => (a === '{out}' ? out : a === '{empty}' ? empty : a)), out };
}

/** What no case may print: a stack frame or the internal-error wording. */
export const NEVER = /internal error|\n\s+at .+:\d+:\d+|STAMPEDE_DEBUG/;
