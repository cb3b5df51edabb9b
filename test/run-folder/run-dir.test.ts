import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArtifactWriteError, createNewRunDir, createRunDir, defaultRunDir } from '../../src/run-folder/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-rundir-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('default run folders', () => {
  it('are named by profile and UTC second, with a prefix for qualifications', () => {
    const at = new Date('2026-11-30T10:58:54.321Z');
    expect(defaultRunDir('reports', 'steady-peak', at)).toBe(join('reports', 'steady-peak', '2026-11-30T10-58-54Z'));
    expect(defaultRunDir('reports', 'steady-peak', at, 'qualify-')).toBe(join('reports', 'steady-peak', 'qualify-2026-11-30T10-58-54Z'));
  });

  it('never give two runs started in the same second one folder', () => {
    const dir = defaultRunDir(scratch, 'twice', new Date('2026-11-30T10:58:54Z'));
    const claimed = [createNewRunDir(dir), createNewRunDir(dir), createNewRunDir(dir)];
    expect(claimed).toEqual([dir, `${dir}-2`, `${dir}-3`]);
    for (const d of claimed) expect(statSync(d).isDirectory()).toBe(true);
  });
});

describe('a folder the caller named', () => {
  it('is made level by level, and an existing one is reused', () => {
    const deep = join(scratch, 'a', 'b', 'c');
    expect(createRunDir(deep)).toBe(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(createRunDir(deep)).toBe(deep);
  });

  it.each([
    // /proc takes no folders: Node's recursive mkdir retried it for ever, ignoring signals.
    ['/proc/stampede-out/run', 'ENOENT', 'no folder can be made there'],
    ['<file>/run', 'ENOTDIR', 'a part of the path is a file, not a folder'],
  ])('%s is refused at once as a place that cannot hold the run (%s)', (dir, code, reason) => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'x');
    const path = dir.replace('<file>', file);
    let error: unknown;
    try {
      createRunDir(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ArtifactWriteError);
    expect((error as ArtifactWriteError).code).toBe(code);
    expect((error as Error).message).toContain(reason);
  });
});
