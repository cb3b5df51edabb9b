import { closeSync, constants, createReadStream, fstatSync, lstatSync, openSync, readSync, realpathSync, type ReadStream, type Stats } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/*
 * Every file stampede is given to read — a profile, a key file, a TLS file, a k6 script, a run
 * folder's artifacts — is opened here, and read only if it is a regular file (after its symlinks)
 * under a size bound suited to what it holds. A FIFO would block the read for ever, /dev/zero
 * would fill the memory, a 600 MB result.json would pass V8's longest string: each is refused at
 * once, by name, as bad input. The file is opened non-blocking (a FIFO's open does not wait for a
 * writer) and checked on the opened descriptor, so what was checked is what is read.
 */

/** A file stampede will not read: missing, not a regular file, over its bound, or not in its format. Bad input (exit 2). */
export class InputFileError extends Error {
  override readonly name = 'InputFileError';

  constructor(
    readonly file: string,
    readonly reason: string,
    /** The system's error code when the file could not be opened (ENOENT, EACCES, …). */
    readonly code?: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

/** What a file is said to be in messages ("a result.json"), and the most bytes such a file may hold. */
export interface FileBound {
  what: string;
  maxBytes: number;
}

/** A file read line by line: also the longest line, which a reader holds whole. */
export interface LineBound extends FileBound {
  maxLineBytes: number;
}

export const MiB = 1024 * 1024;

/** The whole file, once checked. @throws InputFileError */
export function readInputFile(file: string, bound: FileBound): Buffer {
  const fd = openChecked(file, bound);
  try {
    return readToEnd(fd, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

/** The whole file as UTF-8 text. @throws InputFileError */
export function readInputText(file: string, bound: FileBound): string {
  return readInputFile(file, bound).toString('utf8');
}

/** The file parsed as JSON; text that is not JSON is bad input naming the file. @throws InputFileError */
export function readInputJson(file: string, bound: FileBound, reviver?: (key: string, value: unknown) => unknown): unknown {
  const text = readInputText(file, bound);
  try {
    return JSON.parse(text, reviver);
  } catch (error) {
    throw new InputFileError(file, `not JSON (${(error as Error).message})`);
  }
}

/** A stream of the file's bytes, once checked; it never reads past the bound, even of a file still growing. @throws InputFileError */
export function openInputStream(file: string, bound: FileBound): ReadStream {
  return createReadStream(file, { fd: openChecked(file, bound), start: 0, end: bound.maxBytes - 1 });
}

/**
 * The file's lines as they stream ("\n" or "\r\n"), in memory bounded by the longest line: a line
 * over `maxLineBytes` (a file of zeros has one) is refused rather than gathered. @throws InputFileError
 */
export async function* readInputLines(file: string, bound: LineBound): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending: string[] = [];
  let pendingLength = 0;
  for await (const chunk of openInputStream(file, bound) as AsyncIterable<Buffer>) {
    const text = decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      pending.push(text.slice(start, end));
      yield withoutCr(pending.join(''));
      pending = [];
      pendingLength = 0;
      start = end + 1;
    }
    pending.push(text.slice(start));
    pendingLength += text.length - start;
    if (pendingLength > bound.maxLineBytes) throw new InputFileError(file, `a line of more than ${formatBytes(bound.maxLineBytes)}, longer than any of ${bound.what}`);
  }
  const last = pending.join('') + decoder.end();
  if (last !== '') yield withoutCr(last);
}

function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** The file opened for reading, a regular file under its bound; the caller closes it. */
function openChecked(file: string, bound: FileBound): number {
  const fd = openForReading(file);
  try {
    checkOpened(file, fstatSync(fd), bound);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

// O_NONBLOCK: opening a FIFO would otherwise wait for a writer; O_NOCTTY: a terminal never becomes ours.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function openForReading(file: string): number {
  try {
    return openSync(file, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputFileError(file, OPEN_FAILURES[code ?? ''] ?? (error as Error).message, code);
  }
}

const OPEN_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'a loop of symbolic links',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENAMETOOLONG: 'the path is too long',
  ENXIO: 'a socket or a device with nothing behind it, not a regular file',
};

function checkOpened(file: string, stats: Stats, bound: FileBound): void {
  if (!stats.isFile()) throw new InputFileError(file, `${kindOf(stats)}${linkedTo(file)}, not a regular file`);
  if (stats.size > bound.maxBytes)
    throw new InputFileError(file, `${formatBytes(stats.size)}${linkedTo(file)}, more than ${bound.what} may hold (at most ${formatBytes(bound.maxBytes)})`);
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

/** " (a link to /dev/zero)" for a file reached through symbolic links: where it led is what was refused. */
function linkedTo(file: string): string {
  try {
    return lstatSync(file).isSymbolicLink() ? ` (a link to ${realpathSync(file)})` : '';
  } catch {
    return '';
  }
}

/** Reads up to `size` bytes: a file that shrank since its fstat gives what it still holds. */
function readToEnd(fd: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const n = readSync(fd, buffer, filled, size - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * MiB) return `${round(bytes / (1024 * MiB))} GiB`;
  if (bytes >= MiB) return `${round(bytes / MiB)} MiB`;
  if (bytes >= 1024) return `${round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
