import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { settleOutputs } from '../../src/cli/outputs.ts';
import { describeLosses, FilesLostError, Outputs } from '../../src/run-folder/outputs.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-outputs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const ENOSPC = 'no space left on device (ENOSPC)';

describe('the files of one command (Outputs)', () => {
  it('writes whole files, and records a disk that refuses one instead of throwing (/dev/full: a real ENOSPC)', () => {
    const outputs = new Outputs();
    expect(outputs.write(join(scratch, 'a.md'), 'text\n')).toBe(true);
    expect(readFileSync(join(scratch, 'a.md'), 'utf8')).toBe('text\n');
    expect(outputs.append('/dev/full', 'summary\n')).toBe(false);
    expect(outputs.lost).toEqual([{ path: '/dev/full', why: ENOSPC }]);
    expect(outputs.isLost(join(scratch, 'a.md'))).toBe(false);
  });

  it('adds a second reason to the first, and names files lost for one reason together, in the order lost', () => {
    const outputs = new Outputs();
    outputs.lose('run/latency.hlog', `${ENOSPC}: cut after its last whole interval`);
    outputs.lose('run/report.md', ENOSPC);
    outputs.lose('run/latency.hlog', 'removed to make room for result.json');
    outputs.lose('run/report.html', ENOSPC);
    expect(describeLosses(outputs.lost)).toBe(
      `not saved: run/latency.hlog (${ENOSPC}: cut after its last whole interval, then removed to make room for result.json); run/report.md, run/report.html (${ENOSPC})`,
    );
  });

  it('throws its losses for a library caller that gave none (FilesLostError), and nothing when all was saved', () => {
    const outputs = new Outputs();
    expect(() => outputs.throwIfLost()).not.toThrow();
    outputs.lose('run/result.json', ENOSPC);
    expect(() => outputs.throwIfLost()).toThrow(FilesLostError);
    expect(() => outputs.throwIfLost()).toThrow(`not saved: run/result.json (${ENOSPC})`);
  });
});

describe('the exit code once the outputs are known', () => {
  const settle = (code: number, bySignal: boolean, lost: boolean) => {
    const outputs = new Outputs();
    if (lost) outputs.lose('run/report.html', ENOSPC);
    const printed: string[] = [];
    return { code: settleOutputs(outputs, code, bySignal, (text) => printed.push(text)), printed };
  };

  it('is the command’s own when nothing was lost, and prints nothing', () => {
    expect(settle(0, false, false)).toEqual({ code: 0, printed: [] });
  });

  it.each([
    [0, 'a PASS'],
    [1, 'a FAIL'],
    [4, 'DIVERGED'],
    [130, 'a run the disk stopped (marked interrupted, no signal)'],
  ])('is 3 after %i (%s), with one last line naming the file', (code) => {
    expect(settle(code, false, true)).toEqual({ code: 3, printed: [`stampede: not saved: run/report.html (${ENOSPC})\n`] });
  });

  it('stays 130/143 after a signal and 70 after a bug, the file still named', () => {
    expect(settle(143, true, true).code).toBe(143);
    expect(settle(70, false, true)).toEqual({ code: 70, printed: [`stampede: not saved: run/report.html (${ENOSPC})\n`] });
  });
});
