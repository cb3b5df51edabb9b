import { type FileBound, type LineBound, MiB } from '../files/input-file.ts';

/*
 * How big a run folder's files may be when read back. result.json, analysis.json, profile.json and
 * qualification.json are bounded summaries (under a megabyte for a day-long run; read whole, so
 * V8's longest string, 512 MiB, must stay far off); the streamed logs grow with the run (a few KB
 * per interval: a week at 1 s is a few GB) and are read a line at a time.
 */
const DOCUMENT_MAX = 64 * MiB;
const LOG_MAX = 16 * 1024 * MiB;
/** An interval's line: its histograms and gauges, kilobytes; a file of zeros is one endless line. */
const LOG_LINE_MAX = 16 * MiB;

/** A JSON file of a run or qualification folder, e.g. storedDocument('result.json'). */
export function storedDocument(name: string): FileBound {
  return { what: named(name), maxBytes: DOCUMENT_MAX };
}

/** A streamed log of a run folder (latency.hlog, intervals.jsonl). */
export function storedLog(name: string): LineBound {
  return { what: named(name), maxBytes: LOG_MAX, maxLineBytes: LOG_LINE_MAX };
}

/** "a result.json", "an intervals.jsonl". */
function named(file: string): string {
  return `${/^[aeiou]/.test(file) ? 'an' : 'a'} ${file}`;
}
