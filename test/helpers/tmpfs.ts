import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Small disks for real: a tmpfs of a given size mounted under a scratch folder (ENOSPC when it
 * fills; a tmpfs counts whole 4 KiB pages and nothing for folders), or remounted read-only (EROFS).
 * Mounting needs root (the CI and the dev container run as root); elsewhere `canMount` is false and
 * the tests that need one do not run.
 */
export class Disks {
  private readonly mounted: string[] = [];
  readonly canMount: boolean;

  /** `scratch`: a folder of the test's own, for the mount points (and anything else the test keeps there); removed by `release`. */
  constructor(readonly scratch: string) {
    this.canMount = this.mount('probe', '64k') !== undefined;
  }

  /** A fresh tmpfs of `size` (bytes, or "256k"), or undefined when it cannot be mounted. */
  mount(name: string, size: number | string): string | undefined {
    const dir = join(this.scratch, name);
    mkdirSync(dir, { recursive: true });
    const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    if (mount.status !== 0) return undefined;
    this.mounted.push(dir);
    return dir;
  }

  /** Unmounts every disk (last first) and removes the scratch folder: for afterAll. */
  release(): void {
    for (const dir of this.mounted.reverse()) spawnSync('umount', [dir], { stdio: 'ignore' });
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

/** Fills the disk at `dir`: a write of more than it holds stops at ENOSPC and leaves it full. */
export function fillDisk(dir: string): void {
  spawnSync('sh', ['-c', `head -c 100000000 /dev/zero > ${join(dir, 'filler')}`], { stdio: 'ignore' });
}

/** A file's size as a tmpfs counts it: whole pages. */
export function pages(bytes: number): number {
  return Math.ceil(bytes / PAGE) * PAGE;
}

export const PAGE = 4096;
