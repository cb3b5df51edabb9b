import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A folder left out of a walk, and why: a symbolic link back into the walk, one that leads nowhere, a folder that cannot be read. */
export interface SkippedFolder {
  path: string;
  reason: string;
}

/**
 * Visits `root` and the folders under it, depth first in name order, following symbolic links but
 * entering each folder once: a link back to a folder above it would otherwise be followed until
 * ELOOP, and a second link to a folder would count it twice. A folder is known by its device and
 * inode, so a bind mount of an ancestor is caught too. `visit` says whether to look inside.
 * Returns what was skipped.
 */
export function walkFolders(root: string, visit: (dir: string) => 'descend' | 'stop'): SkippedFolder[] {
  const skipped: SkippedFolder[] = [];
  const firstSeen = new Map<string, string>();
  const above = new Set<string>();
  const walk = (dir: string, id: string) => {
    firstSeen.set(id, dir);
    if (visit(dir) === 'stop') return;
    above.add(id);
    for (const name of entries(dir, skipped)) {
      const path = join(dir, name);
      const folder = folderId(path, skipped);
      if (folder === undefined) continue;
      const seen = firstSeen.get(folder);
      if (seen === undefined) walk(path, folder);
      else skipped.push({ path, reason: above.has(folder) ? `a symbolic link back to ${seen}, a cycle` : `the same folder as ${seen}` });
    }
    above.delete(id);
  };
  const id = folderId(root, skipped);
  if (id !== undefined) walk(root, id);
  return skipped;
}

function entries(dir: string, skipped: SkippedFolder[]): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (error) {
    skipped.push({ path: dir, reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` });
    return [];
  }
}

/** The folder's device:inode, or undefined for a file, or a link that leads to no folder (said in `skipped`). */
function folderId(path: string, skipped: SkippedFolder[]): string | undefined {
  try {
    const stats = statSync(path);
    return stats.isDirectory() ? `${stats.dev}:${stats.ino}` : undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    skipped.push({ path, reason: code === 'ENOENT' ? 'a symbolic link to nothing' : code === 'ELOOP' ? 'a loop of symbolic links' : `cannot be read (${code})` });
    return undefined;
  }
}
