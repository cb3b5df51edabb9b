import { realpathSync } from 'node:fs';
import { dirname, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { type FileBound, InputFileError, MiB, readInputFile, readInputText } from '../../../files/input-file.ts';

/*
 * The files a k6 script may reach: what it imports (bundled by esbuild) and what it open()s. k6
 * itself reads any path; a script linted in CI is untrusted, so stampede lends only regular files
 * under the script's own folder or the working directory (the checkout being linted), each no
 * larger than the sandbox could hold. Reading goes through src/files, as every input does: a FIFO
 * or a device is refused before it can block or flood the read.
 */

/** The script, one of its imports, or a file it opens: at most what one file may bring into the sandbox. */
export const LENT_FILE: FileBound = { what: 'a file a k6 script reads', maxBytes: 16 * MiB };

/** esbuild's loaders by extension, for the script and its imports. */
const LOADERS: Readonly<Record<string, 'js' | 'ts' | 'json'>> = { js: 'js', mjs: 'js', cjs: 'js', ts: 'ts', mts: 'ts', cts: 'ts', json: 'json' };

/** The folders a script's files must be under: its own folder, and the others the caller names. */
export function readableRoots(script: string, others: string[]): string[] {
  return [dirname(resolve(script)), ...others].map((root) => realpathSync(resolve(root)));
}

/** Why `path` is out of the script's reach, or undefined: it must resolve (links followed) under a root. */
function outsideRoots(path: string, roots: string[]): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
  }
  return roots.some((root) => within(root, real)) ? undefined : `outside the folders a k6 script may read (${roots.join(', ')})`;
}

/** The bytes of a file the script may read. @throws Error naming the file and why not */
export function readLent(path: string, roots: string[]): Buffer {
  const outside = outsideRoots(path, roots);
  if (outside) throw new Error(`${path}: ${outside}`);
  return readInputFile(path, LENT_FILE);
}

/** What esbuild loads for a script or one of its imports: its text read here, or the reason it may not be. */
export function loadLent(path: string, roots: string[]): { contents: string; loader: 'js' | 'ts' | 'json' } | { errors: { text: string }[] } {
  const outside = outsideRoots(path, roots);
  if (outside) return { errors: [{ text: `${path}: ${outside}` }] };
  try {
    return { contents: readInputText(path, LENT_FILE), loader: LOADERS[extname(path).slice(1)] ?? 'js' };
  } catch (error) {
    if (error instanceof InputFileError) return { errors: [{ text: error.message }] };
    throw error;
  }
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
