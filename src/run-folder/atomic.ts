import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, ftruncateSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { redact } from './redaction.ts';
import { ArtifactWriteError, asWriteError } from './write-errors.ts';

/**
 * Writes a file so that a reader sees either the old content or the new, never half of it: the
 * text (its secrets redacted, see redaction.ts) goes to a temporary file beside the target, which then replaces it in one rename. A run cut
 * short by a signal or a full disk leaves whole files or none; a disk that refuses the file
 * (full, read-only) throws an ArtifactWriteError naming it.
 */
export function writeFileAtomic(path: string, text: string): void {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'w');
    try {
      writeAll(fd, Buffer.from(redact(text)));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    removeQuietly(temporary);
    throw asWriteError(path, error);
  }
}

/**
 * A nearly full disk takes part of a write and reports no error: only the next write fails. One
 * writeSync is not enough — a file renamed after a short write would be whole-looking and cut.
 */
function writeAll(fd: number, buffer: Buffer): void {
  for (let offset = 0; offset < buffer.length; ) offset += writeSync(fd, buffer, offset);
}

/** Removing a file needs no space; on a read-only disk there is nothing to remove. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // The temporary file was never created (read-only disk): nothing to clean.
  }
}

/**
 * The interval log is the one file not written atomically: it is streamed while the run lasts (so
 * memory does not grow with the run's length, and a reader can follow it live), one whole interval
 * per write, so a run stopped at any moment leaves a valid log of the intervals it closed.
 *
 * A disk that refuses the log (full, read-only, over the size limit) does not stop the run with an
 * exception in the recorder's hot path: the log is cut back to its last whole interval, no more is
 * written, `failure` tells why, and `onFailure` lets the pipeline stop the run and keep result.json.
 */
export class LogStream {
  private fd: number | undefined;
  private bytes = 0;
  /** Why the log stopped short of the run's end; undefined while it is whole. */
  failure: ArtifactWriteError | undefined;

  constructor(
    readonly path: string,
    private readonly onFailure: (failure: ArtifactWriteError) => void = () => {},
  ) {
    try {
      this.fd = openSync(path, 'w');
    } catch (error) {
      throw asWriteError(path, error);
    }
  }

  write(chunk: string): void {
    if (this.fd === undefined) return;
    const buffer = Buffer.from(redact(chunk));
    try {
      // Counted only once whole: a write the disk refuses half-way is cut off again in stop().
      writeAll(this.fd, buffer);
      this.bytes += buffer.length;
    } catch (error) {
      const failure = asWriteError(this.path, error);
      if (!(failure instanceof ArtifactWriteError)) throw failure;
      this.stop(failure);
    }
  }

  /** Safe to call twice. */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private stop(failure: ArtifactWriteError): void {
    try {
      ftruncateSync(this.fd!, this.bytes); // the half-written interval goes: the log stays readable
    } catch {
      // A read-only disk refuses the truncation too, but it also refused the write whole: nothing torn to cut.
    }
    this.close();
    this.failure = failure;
    this.onFailure(failure);
  }
}
