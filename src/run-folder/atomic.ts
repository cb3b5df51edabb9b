import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, ftruncateSync, openSync, renameSync, rmSync, write, writeSync } from 'node:fs';
import { ArtifactWriteError, asWriteError } from './write-errors.ts';

/**
 * Writes a file so that a reader sees either the old content or the new, never half of it: the
 * text goes to a temporary file beside the target, which then replaces it in one rename. A run cut
 * short by a signal or a full disk leaves whole files or none; a disk that refuses the file
 * (full, read-only) throws an ArtifactWriteError naming it.
 */
export function writeFileAtomic(path: string, text: string): void {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'w');
    try {
      writeAll(fd, Buffer.from(text));
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
 * On a wall clock (`async`) the writes go to libuv's thread pool: they come from the recorder on
 * the sending thread, once per interval, and a write(2) that a busy disk holds in its dirty-page
 * throttling for tens or hundreds of ms would hold the pacer with it. Chunks queue in order while one
 * write is out; `close` waits for the queue. In virtual time (the model, a merge) nothing waits on
 * the clock and intervals close far faster than a disk takes them: the writes stay synchronous, so
 * memory stays bounded and a full disk stops the run at once.
 *
 * A disk that refuses the log (full, read-only, over the size limit) does not stop the run with an
 * exception in the recorder's hot path: the log is cut back to its last whole interval, no more is
 * written, `failure` tells why, and `onFailure` lets the pipeline stop the run and keep result.json.
 */
export class LogStream {
  private fd: number | undefined;
  /** Bytes of whole chunks on disk: where a refused write is cut back to. */
  private bytes = 0;
  private readonly queued: Buffer[] = [];
  private writing = false;
  private drained: (() => void) | undefined;
  /** Why the log stopped short of the run's end; undefined while it is whole. */
  failure: ArtifactWriteError | undefined;
  private unexpected: unknown;

  constructor(
    readonly path: string,
    private readonly onFailure: (failure: ArtifactWriteError) => void = () => {},
    private readonly mode: 'sync' | 'async' = 'sync',
  ) {
    try {
      this.fd = openSync(path, 'w');
    } catch (error) {
      throw asWriteError(path, error);
    }
  }

  write(chunk: string): void {
    if (this.fd === undefined) return;
    const buffer = Buffer.from(chunk);
    if (this.mode === 'sync') return this.writeNow(buffer);
    this.queued.push(buffer);
    if (!this.writing) this.writeNext();
  }

  private writeNow(buffer: Buffer): void {
    try {
      writeAll(this.fd!, buffer);
      // Counted only once whole: a write the disk refuses half-way is cut off again in stop().
      this.bytes += buffer.length;
    } catch (error) {
      this.stop(asWriteError(this.path, error));
    }
  }

  /** Waits for every queued chunk, then closes the file. Safe to call twice. */
  async close(): Promise<void> {
    if (this.writing) await new Promise<void>((resolve) => (this.drained = resolve));
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.unexpected !== undefined) throw this.unexpected;
  }

  private writeNext(): void {
    const chunk = this.queued.shift();
    if (chunk === undefined || this.fd === undefined) {
      this.writing = false;
      this.drained?.();
      return;
    }
    this.writing = true;
    this.writeFrom(chunk, 0);
  }

  /** A nearly full disk takes part of a write and reports no error: the rest is written again, and only a refusal stops the log. */
  private writeFrom(chunk: Buffer, offset: number): void {
    write(this.fd!, chunk, offset, chunk.length - offset, null, (error, written) => {
      if (error) return this.stop(asWriteError(this.path, error));
      if (offset + written < chunk.length) return this.writeFrom(chunk, offset + written);
      // Counted only once whole: a write the disk refuses half-way is cut off again in stop().
      this.bytes += chunk.length;
      this.writeNext();
    });
  }

  /** A refusal of the disk becomes `failure`; any other error (a bug) is thrown (from `close` when it came in a callback). */
  private stop(error: unknown): void {
    if (this.mode === 'sync' && !(error instanceof ArtifactWriteError)) throw error;
    try {
      ftruncateSync(this.fd!, this.bytes); // the half-written interval goes: the log stays readable
    } catch {
      // A read-only disk refuses the truncation too, but it also refused the write whole: nothing torn to cut.
    }
    closeSync(this.fd!);
    this.fd = undefined;
    this.queued.length = 0;
    this.writing = false;
    if (error instanceof ArtifactWriteError) {
      this.failure = error;
      this.onFailure(error);
    } else this.unexpected = error;
    this.drained?.();
  }
}
