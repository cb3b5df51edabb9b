import { closeSync, openSync, readSync } from 'node:fs';
import { Decompress } from 'fzstd';
import { InputFileError } from '../files/input-file.ts';

/*
 * A trace's lines pulled one at a time, synchronously: a replay's schedule is asked for its next
 * request from inside the run (Schedule.next is synchronous), so it cannot await a stream. The file
 * is read in chunks with readSync, through zstd's streaming decoder when it is compressed; memory
 * is a chunk and what it decompressed to, never the file.
 */

const CHUNK_BYTES = 1024 * 1024;
const ZSTD_MAGIC = 0xfd2fb528;
const MAX_LINE_BYTES = 1024 * 1024;

/** Where the current line is: bytes [start, end) of `bytes`, its "\r" cut off; `number` counts from 1. */
export interface LineView {
  bytes: Buffer;
  start: number;
  end: number;
  number: number;
}

export class SyncLineSource {
  private fd: number | undefined;
  private readonly chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private decompress: Decompress | undefined;
  private first = true;
  private ended = false;
  /** Decoded bytes not yet split into lines, oldest first; `at` is the read position in the first. */
  private readonly pending: Buffer[] = [];
  private at = 0;
  readonly line: LineView = { bytes: Buffer.alloc(0), start: 0, end: 0, number: 0 };

  constructor(private readonly file: string) {
    try {
      this.fd = openSync(file, 'r');
    } catch (error) {
      throw new InputFileError(file, (error as Error).message);
    }
  }

  /** Moves `line` to the next line; false at the end of the file (which is then closed). */
  next(): boolean {
    for (;;) {
      const bytes = this.pending[0];
      if (bytes !== undefined) {
        const newline = bytes.indexOf(10, this.at);
        if (newline >= 0) return this.take(bytes, this.at, newline, newline + 1);
        if (this.pending.length > 1) {
          this.joinFirstTwo();
          continue;
        }
      }
      if (this.ended) {
        if (bytes === undefined || this.at >= bytes.length) return this.finish();
        return this.take(bytes, this.at, bytes.length, bytes.length);
      }
      this.readChunk();
    }
  }

  /** Closes the file (a replay cut short); next() then ends. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.ended = true;
    this.pending.length = 0;
  }

  private take(bytes: Buffer, start: number, end: number, after: number): true {
    const line = this.line;
    line.bytes = bytes;
    line.start = start;
    line.end = end > start && bytes[end - 1] === 13 ? end - 1 : end;
    line.number++;
    this.at = after;
    if (after >= bytes.length) {
      this.pending.shift();
      this.at = 0;
    }
    return true;
  }

  private finish(): false {
    this.close();
    return false;
  }

  /** A line cut by a chunk's end: the rest of the first buffer joined with the next. */
  private joinFirstTwo(): void {
    const head = this.pending.shift()!.subarray(this.at);
    if (head.length > MAX_LINE_BYTES) throw new InputFileError(this.file, `line ${this.line.number + 1}: longer than ${MAX_LINE_BYTES} bytes, not a request`);
    this.pending[0] = Buffer.concat([head, this.pending[0]!]);
    this.at = 0;
  }

  private readChunk(): void {
    const read = this.fd === undefined ? 0 : readSync(this.fd, this.chunk, 0, CHUNK_BYTES, null);
    if (this.first && read >= 4) this.decompress = this.chunk.readUInt32LE(0) === ZSTD_MAGIC ? this.decoder() : undefined;
    this.first = false;
    if (read === 0) {
      this.ended = true;
      this.push(new Uint8Array(0), true);
      return;
    }
    // The chunk buffer is read into again: what is kept of it is copied.
    this.push(this.chunk.subarray(0, read), false);
  }

  private push(data: Uint8Array, final: boolean): void {
    if (this.decompress === undefined) {
      if (data.length > 0) this.pending.push(Buffer.from(data));
      return;
    }
    try {
      this.decompress.push(final ? data : new Uint8Array(data), final);
    } catch (error) {
      throw new InputFileError(this.file, `not a whole zstd stream (${(error as Error).message})`);
    }
  }

  private decoder(): Decompress {
    // fzstd may hand out views of its window, which it overwrites: each piece is copied.
    return new Decompress((data) => {
      if (data.length > 0) this.pending.push(Buffer.from(data));
    });
  }
}
