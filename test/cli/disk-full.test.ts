import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LogStream } from '../../src/run-folder/atomic.ts';
import type { ArtifactWriteError } from '../../src/run-folder/write-errors.ts';
import { stampede } from '../helpers/cli.ts';
import { Disks } from '../helpers/tmpfs.ts';

/*
 * A full or read-only disk, for real (test/helpers/tmpfs.ts); where it cannot be mounted, the
 * /dev/full test below (a real ENOSPC from the kernel, no mount needed) still covers the interval
 * log. A disk that fills (ENOSPC) at each point of a run, a qualification and every other command
 * that writes: test/hostile/disk.test.ts.
 */

const disks = new Disks(mkdtempSync(join(tmpdir(), 'stampede-disk-')));
const canMount = disks.canMount;
afterAll(() => disks.release());
const mountTmpfs = (name: string, size: string) => disks.mount(name, size);
const scratch = disks.scratch;

// An hour of virtual traffic: its interval log alone is far larger than a small disk.
const HOUR_RUN = ['run', 'test/fixtures/cli/small.yaml', '--set', 'phases[0].duration=1h', '--quiet'];

describe.runIf(canMount)('a read-only disk (tmpfs remounted ro)', { timeout: 120_000 }, () => {
  it('run, history and compare --out: exit 3 naming the path, before any traffic for run', () => {
    const disk = mountTmpfs('ro', '1m')!;
    expect(spawnSync('mount', ['-o', 'remount,ro', disk]).status).toBe(0);
    const run = stampede([...HOUR_RUN, '--out', join(disk, 'run')]);
    expect(run.status).toBe(3);
    expect(run.stderr).toBe(`stampede: could not write ${join(disk, 'run')}: read-only file system (EROFS)\n`);

    const night = join(scratch, 'nights', 'one');
    expect(stampede(['run', 'test/fixtures/cli/small.yaml', '--out', night, '--quiet']).status).toBe(0);
    const history = stampede(['history', join(scratch, 'nights'), '--out', disk]);
    expect(history.status).toBe(3);
    expect(history.stderr).toBe(`stampede: not saved: ${join(disk, 'history.md')}, ${join(disk, 'history.html')} (read-only file system (EROFS))\n`);
    expect(history.stdout).not.toContain('written to');
    const compare = stampede(['compare', night, night, '--out', join(disk, 'compare.md')]);
    expect(compare.status).toBe(3);
    expect(compare.stderr).toBe(`stampede: not saved: ${join(disk, 'compare.md')} (read-only file system (EROFS))\n`);
  });
});

describe('the interval log on a device that is always full (/dev/full)', () => {
  it('stops writing instead of throwing in the hot path, and says why', async () => {
    const failures: ArtifactWriteError[] = [];
    const log = new LogStream('/dev/full', (f) => failures.push(f));
    log.write('#[StartTime: 0]\n');
    log.write('more\n');
    await log.close();
    expect(failures).toHaveLength(1);
    expect(log.failure?.message).toBe('could not write /dev/full: no space left on device (ENOSPC)');
    expect(existsSync('/dev/full')).toBe(true);
  });
});
