import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { walkFolders } from '../../src/run-folder/walk.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-walk-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('walkFolders (the folders history looks through)', () => {
  it('enters each folder once: a link back up is a cycle, a second link the same folder, a dangling or self link leads nowhere', () => {
    const root = join(scratch, 'nights');
    mkdirSync(join(root, 'a', 'run-1'), { recursive: true });
    mkdirSync(join(root, 'b'), { recursive: true });
    writeFileSync(join(root, 'notes.txt'), 'not a folder');
    symlinkSync('..', join(root, 'a', 'up'));
    symlinkSync(join(root, 'a', 'run-1'), join(root, 'b', 'again'));
    symlinkSync('/nonexistent/stampede', join(root, 'b', 'dangling'));
    symlinkSync('self', join(root, 'b', 'self'));
    const visited: string[] = [];
    const skipped = walkFolders(root, (dir) => (visited.push(dir), dir.endsWith('run-1') ? 'stop' : 'descend'));
    expect(visited).toEqual([root, join(root, 'a'), join(root, 'a', 'run-1'), join(root, 'b')]);
    expect(skipped).toEqual([
      { path: join(root, 'a', 'up'), reason: `a symbolic link back to ${root}, a cycle` },
      { path: join(root, 'b', 'again'), reason: `the same folder as ${join(root, 'a', 'run-1')}` },
      { path: join(root, 'b', 'dangling'), reason: 'a symbolic link to nothing' },
      { path: join(root, 'b', 'self'), reason: 'a loop of symbolic links' },
    ]);
  });
});
