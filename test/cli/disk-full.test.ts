import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LogStream } from '../../src/run-folder/atomic.ts';
import type { ArtifactWriteError } from '../../src/run-folder/write-errors.ts';
import { stampede } from '../helpers/cli.ts';

/*
 * A full or read-only disk, for real: a tmpfs of a few hundred KB mounted under a temporary folder
 * (ENOSPC when it fills), and one remounted read-only (EROFS). Mounting needs root (the CI and the
 * dev container run as root); elsewhere these tests do not run, and the /dev/full test below (a real
 * ENOSPC from the kernel, no mount needed) still covers the interval log.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-disk-'));
const mounted: string[] = [];

function mountTmpfs(name: string, size: string): string | undefined {
  const dir = join(scratch, name);
  mkdirSync(dir);
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  if (mount.status !== 0) return undefined;
  mounted.push(dir);
  return dir;
}

const canMount = (() => {
  const probe = mountTmpfs('probe', '64k');
  return probe !== undefined;
})();

afterAll(() => {
  for (const dir of mounted.reverse()) spawnSync('umount', [dir], { stdio: 'ignore' });
  rmSync(scratch, { recursive: true, force: true });
});

// An hour of virtual traffic: its interval log alone is far larger than the disks below.
const HOUR_RUN = ['run', 'test/fixtures/cli/small.yaml', '--set', 'phases[0].duration=1h', '--quiet'];

describe.runIf(canMount)('a full disk (tmpfs)', { timeout: 120_000 }, () => {
  it('the log filling the disk stops the run; result.json is kept (the log gives way), exit 3 naming the file', () => {
    const disk = mountTmpfs('full', '256k')!;
    const out = join(disk, 'run');
    const run = stampede([...HOUR_RUN, '--out', out]);
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(new RegExp(`^stampede: could not write ${out}/latency.hlog: no space left on device \\(ENOSPC\\); the run was stopped there`));
    expect(run.stderr).toMatch(/kept: result\.json/);
    expect(run.stderr).not.toContain('internal error');
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(result.interrupted).toBe(true);
    expect(result.requests.ok).toBeGreaterThan(0);
    // No temporary file left behind.
    expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a disk already full: exit 3 naming result.json, nothing kept, no temporary file left', () => {
    const disk = mountTmpfs('filled', '64k')!;
    // Fill it: the write stops at ENOSPC, leaving the disk full.
    spawnSync('sh', ['-c', `head -c 1000000 /dev/zero > ${join(disk, 'filler')}`]);
    const out = join(disk, 'run');
    const run = stampede([...HOUR_RUN, '--out', out]);
    expect(run.status).toBe(3);
    expect(run.stderr).toBe(
      `stampede: could not write ${out}/result.json: no space left on device (ENOSPC); latency.hlog and intervals.jsonl were removed to make room, in vain; nothing was kept\n`,
    );
    expect(readdirSync(out)).toEqual([]);
  });
});

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
    expect(history.stderr).toBe(`stampede: could not write ${join(disk, 'history.md')}: read-only file system (EROFS)\n`);
    const compare = stampede(['compare', night, night, '--out', join(disk, 'compare.md')]);
    expect(compare.status).toBe(3);
    expect(compare.stderr).toContain(`could not write ${join(disk, 'compare.md')}: read-only file system (EROFS)`);
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
