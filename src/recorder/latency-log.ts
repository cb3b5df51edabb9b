import { decodeFromCompressedBase64, encodeIntoCompressedBase64, newHistogram, type Histogram } from './histograms.ts';
import { type IntervalHistograms, KIND_TAG_PREFIX, WARMUP_TAG, kindTag } from './interval-histograms.ts';

/*
 * latency.hlog: the HdrHistogram interval log (format 1.3) every run writes, readable whole by
 * HdrHistogram's own tools (HistogramLogProcessor, HdrHistogramVisualizer). Each interval is one
 * untagged line (the measured requests) and tagged lines for each request kind and for the warm-up
 * (see interval-histograms.ts). Values are integer microseconds from the intended send time; the
 * interval max column is in microseconds too.
 */

export const LOG_FORMAT_VERSION = '1.3';
export const LOG_UNIT = 'microseconds';

export interface LogHeader {
  /** Epoch ms of the run's start (the log's StartTime); interval timestamps are seconds from it. */
  startTimeMs: number;
  intervalUs: number;
  warmupUs: number;
  kinds: readonly string[];
}

export function logHeader(h: LogHeader): string {
  const seconds = (us: number) => (us / 1e6).toFixed(3);
  return [
    `#[Histogram log format version ${LOG_FORMAT_VERSION}]`,
    `#[StartTime: ${(h.startTimeMs / 1000).toFixed(3)} (seconds since epoch), ${new Date(h.startTimeMs).toISOString()}]`,
    `#[BaseTime: ${(h.startTimeMs / 1000).toFixed(3)} (seconds since epoch)]`,
    `#[Latency unit: ${LOG_UNIT} from each request's intended send time (Interval_Max too); use -outputValueUnitRatio 1000 for milliseconds]`,
    `#[Interval: ${seconds(h.intervalUs)} s]`,
    `#[Warm-up: ${seconds(h.warmupUs)} s; requests sent in it are tagged ${WARMUP_TAG}, never in the untagged histograms]`,
    `#[Tags: untagged = measured requests (result.json latencyUs); ${h.kinds.map(kindTag).join(', ')} = measured requests of one kind (byKind); ${WARMUP_TAG} = warm-up requests]`,
    '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"',
  ]
    .map((line) => `${line}\n`)
    .join('');
}

/**
 * One interval's lines: the untagged one always (readers see every interval), tagged ones when not
 * empty. `startSec` is from the log's StartTime; an interval that is all warm-up says so in a comment.
 */
export function logInterval(startSec: number, lengthSec: number, histograms: IntervalHistograms, kinds: readonly string[]): string {
  let out = '';
  if (histograms.measured.totalCount === 0 && histograms.warmup.totalCount > 0) out += `#[Warm-up interval at ${startSec.toFixed(3)} s]\n`;
  out += logLine(undefined, startSec, lengthSec, histograms.measured);
  histograms.byKind.forEach((h, i) => {
    if (h.totalCount > 0) out += logLine(kindTag(kinds[i]!), startSec, lengthSec, h);
  });
  if (histograms.warmup.totalCount > 0) out += logLine(WARMUP_TAG, startSec, lengthSec, histograms.warmup);
  return out;
}

function logLine(tag: string | undefined, startSec: number, lengthSec: number, h: Histogram): string {
  const max = h.totalCount === 0 ? 0 : h.maxValue;
  return `${tag === undefined ? '' : `Tag=${tag},`}${startSec.toFixed(3)},${lengthSec.toFixed(3)},${max.toFixed(3)},${encodeIntoCompressedBase64(h)}\n`;
}

/** One interval read back: its start (s from StartTime) and its histograms by tag ('' for the untagged one), still encoded. */
export interface LogIntervalLines {
  startSec: number;
  lengthSec: number;
  byTag: Map<string, string>;
}

/**
 * The log's intervals one at a time (an interval's lines are consecutive and share a start), with
 * the StartTime of the header in `header.startTimeMs` once read. Memory is one interval.
 */
export async function* readLogIntervals(lines: AsyncIterable<string>, header: { startTimeMs?: number } = {}): AsyncGenerator<LogIntervalLines> {
  let current: LogIntervalLines | undefined;
  for await (const line of lines) {
    if (line.startsWith('#[StartTime: ')) header.startTimeMs = Math.round(Number.parseFloat(line.slice('#[StartTime: '.length)) * 1000);
    if (line.startsWith('#') || line.startsWith('"') || line.trim() === '') continue;
    const parsed = parseLogLine(line);
    if (current && current.startSec !== parsed.startSec) {
      yield current;
      current = undefined;
    }
    current ??= { startSec: parsed.startSec, lengthSec: parsed.lengthSec, byTag: new Map() };
    current.byTag.set(parsed.tag, parsed.encoded);
  }
  if (current) yield current;
}

function parseLogLine(line: string): { tag: string; startSec: number; lengthSec: number; encoded: string } {
  const tokens = line.trim().split(',');
  const tag = tokens[0]!.startsWith('Tag=') ? tokens.shift()!.slice('Tag='.length) : '';
  if (tokens.length !== 4) throw new Error(`latency.hlog: not an interval line: ${line.slice(0, 80)}`);
  return { tag, startSec: Number.parseFloat(tokens[0]!), lengthSec: Number.parseFloat(tokens[1]!), encoded: tokens[3]! };
}

/** Whether a log tag is a request kind's. */
export function isKindTag(tag: string): boolean {
  return tag.startsWith(KIND_TAG_PREFIX);
}

/** One interval of the latency log: its start and the recorded values with their counts. */
export interface LoggedInterval {
  /** Interval start, ms from the run start. */
  tMs: number;
  /** [latency µs, count], ascending by latency; HDR bucket values (3 significant digits). */
  counts: [number, number][];
}

interface IterationValue {
  valueIteratedTo: number;
  countAtValueIteratedTo: number;
}
interface IterableHistogram {
  recordedValuesIterator: { reset(): void; hasNext(): boolean; next(): IterationValue };
}

/** The recorded (value, count) pairs of a histogram, ascending. */
export function recordedValues(h: Histogram): [number, number][] {
  const it = (h as unknown as IterableHistogram).recordedValuesIterator;
  it.reset();
  const out: [number, number][] = [];
  while (it.hasNext()) {
    const v = it.next();
    out.push([v.valueIteratedTo, v.countAtValueIteratedTo]);
  }
  return out;
}

/**
 * Reads latency.hlog line by line into per-column value counts, `perColumn` neighbouring intervals
 * summed into each column: memory is bounded by the columns, not by the run's length. A column
 * holds every completion of its intervals (untagged and warm-up; the per-kind lines repeat those).
 */
export async function readLatencyLogColumns(lines: AsyncIterable<string>, perColumn: number): Promise<LoggedInterval[]> {
  const out: LoggedInterval[] = [];
  // Each interval is added into its column's histogram, and the column's values listed once when
  // it closes: listing every interval's values (HDR's iterator) took most of a long run's reading.
  let column: { tMs: number; histogram: Histogram; intervals: number } | undefined;
  for await (const interval of readLogIntervals(lines)) {
    column ??= { tMs: Math.round(interval.startSec * 1000), histogram: newHistogram(), intervals: 0 };
    for (const tag of ['', WARMUP_TAG]) {
      const encoded = interval.byTag.get(tag);
      if (encoded !== undefined) column.histogram.add(decodeFromCompressedBase64(encoded));
    }
    if (++column.intervals >= perColumn) {
      out.push(closed(column));
      column = undefined;
    }
  }
  if (column) out.push(closed(column));
  return out;
}

function closed(column: { tMs: number; histogram: Histogram }): LoggedInterval {
  return { tMs: column.tMs, counts: recordedValues(column.histogram) };
}

/** The latency histogram of the given intervals merged (e.g. the measured ones, without the warm-up). */
export function mergeIntervals(intervals: readonly LoggedInterval[]): Histogram {
  const h = newHistogram();
  for (const i of intervals) for (const [value, count] of i.counts) h.recordValueWithCount(value, count);
  return h;
}
