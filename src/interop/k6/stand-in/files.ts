import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, type Stats, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/*
 * The files a k6 script may reach: what it imports (bundled by esbuild) and what it open()s. k6
 * itself reads any path; a script linted in CI is untrusted, so stampede lends only regular files
 * under the script's own folder or the working directory (the checkout being linted), each no
 * larger than the sandbox could hold.
 */

/** The most one file may bring into the sandbox (a script's import, a file it opens). */
export const SCRIPT_FILE_BYTES = 16 * 1024 * 1024;

/** The folders a script's files must be under: its own folder, and the others the caller names. */
export function readableRoots(script: string, others: string[]): string[] {
  return [dirname(resolve(script)), ...others].map((root) => realpathSync(resolve(root)));
}

/** Why `path` may not be read, or undefined when it may: under a root (links followed), a regular file, within the size bound. */
export function refusal(path: string, roots: string[]): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
  }
  if (!roots.some((root) => within(root, real))) return `outside the folders a k6 script may read (${roots.join(', ')})`;
  return unfit(statSync(real));
}

/** The bytes of a file the script may read. @throws Error naming the file and why not */
export function readLent(path: string, roots: string[]): Buffer {
  const refused = refusal(path, roots);
  if (refused) throw new Error(`${path}: ${refused}`);
  // Non-blocking, and checked again on the open descriptor: a FIFO swapped in would otherwise block the open or the read.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    const unfitNow = unfit(stat);
    if (unfitNow) throw new Error(`${path}: ${unfitNow}`);
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    let n = -1;
    while (n !== 0 && read < bytes.length) {
      n = readSync(fd, bytes, read, bytes.length - read, read);
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

function unfit(stat: Stats): string | undefined {
  if (!stat.isFile()) return 'not a regular file';
  if (stat.size > SCRIPT_FILE_BYTES) return `larger than ${SCRIPT_FILE_BYTES / 1024 / 1024} MiB, the most a k6 script may read`;
  return undefined;
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
