import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/**
 * Writes a file so that a reader sees either the old content or the new, never half of it: the
 * text goes to a temporary file beside the target, which then replaces it in one rename. A run cut
 * short by a signal or a full disk leaves whole files or none.
 */
export function writeFileAtomic(path: string, text: string): void {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'w');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * The interval log is the one file not written atomically: it is streamed while the run lasts (so
 * memory does not grow with the run's length, and a reader can follow it live), one whole interval
 * per write, so a run stopped at any moment leaves a valid log of the intervals it closed.
 */
export class LogStream {
  private fd: number | undefined;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  write(chunk: string): void {
    if (this.fd !== undefined) writeSync(this.fd, chunk);
  }

  /** Safe to call twice. */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
