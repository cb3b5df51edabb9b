import { appendFileSync, existsSync, rmSync, statfsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { writeFileAtomic } from './atomic.ts';
import { ArtifactWriteError, asWriteError, isOutOfSpace } from './write-errors.ts';

/** A file a command meant to leave whole and did not, and why. */
export interface LostFile {
  path: string;
  why: string;
}

/**
 * Every file one command writes — a run folder, a report, a script, a JUnit file, its standard
 * output — and those it could not keep. A disk that refuses a file does not end the command: the
 * loss is recorded here and the command goes on writing the other files and printing what it
 * measured; the CLI then names every lost file in its last line and exits 3 (cli/outputs.ts). Any
 * other error is a bug, thrown as ever.
 */
export class Outputs {
  private readonly losses = new Map<string, string>();

  /** `text` to `path`, atomically (atomic.ts); false, and recorded, when the disk refused it. */
  write(path: string, text: string): boolean {
    return this.attempt(path, () => writeFileAtomic(path, text));
  }

  /** `text` added to the end of `path`, a file others write too ($GITHUB_STEP_SUMMARY); false, and recorded, when the disk refused it. */
  append(path: string, text: string): boolean {
    return this.attempt(path, () => {
      try {
        appendFileSync(path, text);
      } catch (error) {
        throw asWriteError(path, error);
      }
    });
  }

  writeJson(path: string, value: unknown): boolean {
    return this.write(path, jsonText(value));
  }

  /**
   * `path` kept at the cost of `expendable` files already written, most expendable first: on a full
   * disk they are removed one at a time, each recorded, until it fits. None is removed in vain: when
   * the free space and all of them together could not hold it, they stay. `text` is asked again
   * after each removal (result.json names the logs it keeps).
   */
  writeMakingRoom(path: string, text: () => string, expendable: readonly string[]): boolean {
    const candidates = expendable.filter((file) => existsSync(file));
    for (;;) {
      const content = text();
      try {
        writeFileAtomic(path, content);
        return true;
      } catch (error) {
        if (!(error instanceof ArtifactWriteError)) throw error;
        const victim = isOutOfSpace(error) && roomFor(path, content, candidates) ? candidates.shift() : undefined;
        if (victim === undefined) {
          this.lose(path, error.reason);
          return false;
        }
        rmSync(victim, { force: true });
        this.lose(victim, `removed to make room for ${basename(path)}`);
      }
    }
  }

  private attempt(path: string, write: () => void): boolean {
    try {
      write();
      return true;
    } catch (error) {
      if (!(error instanceof ArtifactWriteError)) throw error;
      this.lose(path, error.reason);
      return false;
    }
  }

  /** `path` will not be whole on disk (refused part-way, given up); a second reason adds to the first. */
  lose(path: string, why: string): void {
    const before = this.losses.get(path);
    this.losses.set(path, before === undefined ? why : `${before}, then ${why}`);
  }

  isLost(path: string): boolean {
    return this.losses.has(path);
  }

  /** Every lost file, in the order it was first lost. */
  get lost(): LostFile[] {
    return [...this.losses].map(([path, why]) => ({ path, why }));
  }

  /** For a library caller that gave no Outputs: the losses, thrown (FilesLostError) so they are not silent. */
  throwIfLost(): void {
    if (this.losses.size > 0) throw new FilesLostError(this.lost);
  }
}

/**
 * One line naming every lost file and why: the CLI's last line, and FilesLostError's message. Files
 * lost for one reason are named together (a full disk refuses every file after the first).
 */
export function describeLosses(lost: readonly LostFile[]): string {
  const byReason = new Map<string, string[]>();
  for (const file of lost) byReason.set(file.why, [...(byReason.get(file.why) ?? []), file.path]);
  return `not saved: ${[...byReason].map(([why, paths]) => `${paths.join(', ')} (${why})`).join('; ')}`;
}

/** Files a library call could not keep (its caller passed no Outputs to collect them): exit 3 in the CLI. */
export class FilesLostError extends Error {
  override readonly name = 'FilesLostError';

  constructor(readonly lost: readonly LostFile[]) {
    super(describeLosses(lost));
  }
}

export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Whether removing every candidate would leave room for `content` beside what is free now, in
 * blocks as the file system counts them (a tmpfs counts whole pages; its folders take none).
 */
function roomFor(path: string, content: string, candidates: readonly string[]): boolean {
  const disk = statfsSync(dirname(path));
  const freed = candidates.reduce((sum, file) => sum + statSync(file).blocks * 512, 0);
  return disk.bavail * disk.bsize + freed >= Math.ceil(Buffer.byteLength(content) / disk.bsize) * disk.bsize;
}
