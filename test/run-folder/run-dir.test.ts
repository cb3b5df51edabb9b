import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNewRunDir, defaultRunDir } from '../../src/run-folder/index.ts';

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
