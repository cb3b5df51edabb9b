/** The errors of a disk that cannot take the file, however often it is tried: full, over quota, read-only, over the size limit. */
const DISK_ERRORS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EFBIG: 'file too large',
};

/** Why a folder could not be made: these are not a disk refusing a file, but the place cannot hold one either. */
const FOLDER_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no folder can be made there',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
};

/** Why a file could not be made in its folder: the folder is missing, a file, or not ours to write in. */
const FILE_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'its folder is missing, or takes no files',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'a folder is there',
  ENAMETOOLONG: 'the path is too long',
};

/** A full disk (as opposed to a read-only one): removing a file may make room. */
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * A file of the run folder (or a report, a history, a comparison) the disk would not take. Not a
 * bug: the message names the file, the reason and what was kept, and the CLI exits 3.
 */
export class ArtifactWriteError extends Error {
  override readonly name = 'ArtifactWriteError';

  constructor(
    readonly path: string,
    readonly code: string,
    /** What is on disk despite the failure (file names in the run folder), when known. */
    readonly kept?: readonly string[],
    readonly note?: string,
    /** What `path` is: a file written into a folder, or a folder made. */
    readonly place: 'file' | 'folder' = 'file',
  ) {
    const kept_ = kept === undefined ? '' : kept.length === 0 ? '; nothing was kept' : `; kept: ${kept.join(', ')}`;
    const reason = DISK_ERRORS[code] ?? (place === 'folder' ? FOLDER_ERRORS : FILE_ERRORS)[code] ?? code;
    super(`could not write ${path}: ${reason} (${code})${note ? `; ${note}` : ''}${kept_}`);
  }

  /** The same failure, with what the run folder kept. */
  keeping(kept: readonly string[], note = this.note): ArtifactWriteError {
    return new ArtifactWriteError(this.path, this.code, kept, note, this.place);
  }
}

/** `error` as an ArtifactWriteError when the disk or the folder refused the file `path` (full, read-only, missing, not ours); any other error unchanged. */
export function asWriteError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && (code in DISK_ERRORS || code in FILE_ERRORS) ? new ArtifactWriteError(path, code) : error;
}
