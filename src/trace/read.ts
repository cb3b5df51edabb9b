import { Decompress } from 'fzstd';
import { InputFileError, openInputStream } from '../files/input-file.ts';
import { ColumnsError, resolveHeader, type TraceLayout } from './columns.ts';
import { type TraceRequest, TraceLineParser } from './request.ts';

/*
 * A trace is gigabytes: it is streamed, chunk by chunk, through zstd when it is compressed (the
 * public traces are), and each line is parsed in place into one reused request. Memory is what the
 * caller's statistics keep, never the file.
 */

/** A trace file: a regular file, of any size a disk holds; a line is a request, never a megabyte. */
const TRACE_FILE = { what: 'a trace', maxBytes: 2 ** 50 };
const MAX_LINE_BYTES = 1024 * 1024;
const ZSTD_MAGIC = 0xfd2fb528;
/** Lines read before a trace none of whose lines parse is called a wrong format rather than a bad line. */
const FORMAT_PROBE_LINES = 1000;

export interface MalformedLine {
  line: number;
  problem: string;
}

export interface TraceReadOptions {
  /** The share of lines that may be malformed (skipped, counted, the first named) before the trace is refused. */
  maxMalformedShare: number;
  signal?: AbortSignal;
}

export interface TraceReadSummary {
  lines: number;
  requests: number;
  malformed: number;
  /** The first few malformed lines, to name. */
  firstMalformed: MalformedLine[];
  compressed: boolean;
  headerSkipped: boolean;
  /** A signal stopped the read: what was read is all the caller has. */
  interrupted: boolean;
}

const NAMED_MALFORMED = 5;

/**
 * Streams the trace's requests to `onRequest` (the same object each time: copy what you keep), each
 * with its line number.
 * @throws InputFileError naming the file and line: unreadable, not zstd, a wrong format, or more malformed lines than allowed
 */
export async function readTrace(file: string, layout: TraceLayout, onRequest: (request: TraceRequest, line: number) => void, options: TraceReadOptions): Promise<TraceReadSummary> {
  const reader = new LineReader(file, layout, onRequest);
  const input = openInputStream(file, TRACE_FILE);
  let decompress: Decompress | undefined;
  let first = true;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      if (first) {
        first = false;
        if (chunk.length >= 4 && chunk.readUInt32LE(0) === ZSTD_MAGIC) decompress = new Decompress((data) => reader.push(asBuffer(data)));
      }
      if (decompress) pushCompressed(file, decompress, chunk, false);
      else reader.push(chunk);
      if (options.signal?.aborted) return reader.summary(decompress !== undefined, true);
      reader.checkMalformed(options.maxMalformedShare, false);
    }
    if (decompress) pushCompressed(file, decompress, new Uint8Array(0), true);
  } finally {
    input.destroy();
  }
  reader.end();
  reader.checkMalformed(options.maxMalformedShare, true);
  return reader.summary(decompress !== undefined, false);
}

function pushCompressed(file: string, decompress: Decompress, chunk: Uint8Array, final: boolean): void {
  try {
    decompress.push(chunk, final);
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    throw new InputFileError(file, `not a whole zstd stream (${(error as Error).message})`);
  }
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Splits bytes into lines ("\n" or "\r\n"), a line cut by a chunk's end carried to the next. */
class LineReader {
  private carry: Buffer | undefined;
  private parser: TraceLineParser | undefined;
  private lines = 0;
  private requests = 0;
  private malformed = 0;
  private headerSkipped = false;
  private readonly firstMalformed: MalformedLine[] = [];

  constructor(
    private readonly file: string,
    private layout: TraceLayout,
    private readonly onRequest: (request: TraceRequest, line: number) => void,
  ) {}

  push(bytes: Buffer): void {
    let start = 0;
    if (this.carry) {
      const newline = bytes.indexOf(10);
      if (newline < 0) return this.keep(Buffer.concat([this.carry, bytes]));
      const joined = Buffer.concat([this.carry, bytes.subarray(0, newline)]);
      this.carry = undefined;
      this.line(joined, 0, joined.length);
      start = newline + 1;
    }
    for (let newline = bytes.indexOf(10, start); newline >= 0; newline = bytes.indexOf(10, start)) {
      this.line(bytes, start, newline);
      start = newline + 1;
    }
    if (start < bytes.length) this.keep(Buffer.from(bytes.subarray(start)));
  }

  end(): void {
    if (this.carry) this.line(this.carry, 0, this.carry.length);
    this.carry = undefined;
  }

  checkMalformed(maxShare: number, atEnd: boolean): void {
    if (this.malformed === 0) return;
    const first = this.firstMalformed[0]!;
    if (this.requests === 0 && (atEnd || this.lines >= FORMAT_PROBE_LINES))
      throw new InputFileError(this.file, `line ${first.line}: ${first.problem} (no line of the first ${this.lines} is a request in this layout: see --columns)`);
    if (atEnd && this.malformed > maxShare * this.lines)
      throw new InputFileError(
        this.file,
        `line ${first.line}: ${first.problem}; ${this.malformed} of ${this.lines} lines are malformed, more than --max-malformed ${maxShare} allows`,
      );
  }

  summary(compressed: boolean, interrupted: boolean): TraceReadSummary {
    const { lines, requests, malformed, firstMalformed, headerSkipped } = this;
    return { lines, requests, malformed, firstMalformed, compressed, headerSkipped, interrupted };
  }

  private keep(tail: Buffer): void {
    if (tail.length > MAX_LINE_BYTES) throw new InputFileError(this.file, `line ${this.lines + 1}: longer than ${MAX_LINE_BYTES} bytes, not a request`);
    this.carry = tail;
  }

  private line(bytes: Buffer, start: number, end: number): void {
    if (end > start && bytes[end - 1] === 13) end--;
    this.lines++;
    if (end === start) return;
    const parser = this.parser ?? this.firstParser(bytes, start, end);
    if (parser === undefined) return;
    if (parser.parse(bytes, start, end)) {
      this.requests++;
      this.onRequest(parser.request, this.lines);
    } else {
      this.malformed++;
      if (this.firstMalformed.length < NAMED_MALFORMED) this.firstMalformed.push({ line: this.lines, problem: parser.problem });
    }
  }

  /** The parser, made at the first line: a header row names the columns (or, when none are named by header, is skipped if no field is a number). */
  private firstParser(bytes: Buffer, start: number, end: number): TraceLineParser | undefined {
    const fields = bytes.toString('latin1', start, end).split(String.fromCharCode(this.layout.delimiter));
    if (this.layout.headerNames) {
      try {
        this.layout = resolveHeader(this.layout, fields);
      } catch (error) {
        if (error instanceof ColumnsError) throw new InputFileError(this.file, `line 1 (the header): ${error.message}`);
        throw error;
      }
      this.parser = new TraceLineParser(this.layout);
      this.headerSkipped = true;
      return undefined;
    }
    this.parser = new TraceLineParser(this.layout);
    if (fields.length > 1 && fields.every((f) => !/^\d/.test(f))) {
      this.headerSkipped = true;
      return undefined;
    }
    return this.parser;
  }
}
