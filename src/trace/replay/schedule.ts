import { InputFileError } from '../../files/input-file.ts';
import type { Plan, Schedule, ScheduledRequest } from '../../schedule/types.ts';
import { resolveHeader, type TraceLayout } from '../columns.ts';
import { OTHER_OPERATION, TraceLineParser } from '../request.ts';
import { SyncLineSource } from '../sync-lines.ts';
import type { TraceScan } from './scan.ts';

/*
 * A trace as a run's schedule: every request of the window, in the trace's order, at its time
 * scaled by the speed — (t − window start) / speed — with its operation as its kind, its key, value
 * size and TTL. The trace is read a second time, synchronously and streamed, as the driver pulls.
 *
 * A trace's clock is coarse (the public traces count whole seconds), so the requests that share a
 * timestamp are spread evenly over its step instead of all leaving at its first microsecond: the
 * i-th of n at t + step·i/n. That needs the whole group before its first request, so memory holds
 * the busiest timestamp's requests (ids and sizes, 24 bytes each), besides a slot per key.
 */

const INITIAL_GROUP = 1024;

/** The run's plan of a scanned window: its requests, kinds, clients and keys, at `speed` × the trace's pace. */
export function replayPlan(scan: TraceScan, speed: number): Plan {
  const totalUs = Math.max(1, Math.ceil(((scan.endS - scan.startS) * 1e6) / speed));
  const durationS = totalUs / 1e6;
  const clients = scan.clients.map((c) => {
    const rps = c.requests / durationS;
    return { name: c.name, instances: 1, segments: [{ startUs: 0, endUs: totalUs, fromRps: rps, toRps: rps }], expectedRequests: c.requests };
  });
  const names = scan.keyNames;
  return {
    seed: 0,
    warmupUs: 0,
    durationUs: totalUs,
    totalUs,
    arrivals: 'trace',
    phases: [{ label: `trace replay at ${speed}× its pace`, startUs: 0, endUs: totalUs }],
    clients,
    kinds: scan.kinds,
    kindShares: scan.kindRequests.map((n) => n / scan.requests),
    expectedRequests: scan.requests,
    keyspace: { count: names.length, hotKeys: [], keyName: (id) => names[id]! },
  };
}

/** The replay's schedule; `close()` releases the file when a run ends before the trace does. */
export class ReplaySchedule implements Schedule {
  readonly plan: Plan;
  private readonly lines: SyncLineSource;
  private parser: TraceLineParser;
  private layout: TraceLayout;
  private headerPending: boolean;
  private readonly key = new Uint32Array(1);
  private readonly usPerTraceS: number;
  private seq = 0;
  // The current timestamp's requests: their fields by position, where the next to send is.
  private keys = new Uint32Array(INITIAL_GROUP);
  private clients = new Int32Array(INITIAL_GROUP);
  private kinds = new Int32Array(INITIAL_GROUP);
  private valueSizes = new Float64Array(INITIAL_GROUP);
  private ttlsUs = new Float64Array(INITIAL_GROUP);
  private groupSize = 0;
  private groupAt = 0;
  private groupStartUs = 0;
  private groupSpanUs = 0;
  /** The first request of the next timestamp, read while ending the current one: held at index groupSize. */
  private held = false;
  private heldS = 0;

  constructor(
    private readonly scan: TraceScan,
    layout: TraceLayout,
    speed: number,
  ) {
    this.plan = replayPlan(scan, speed);
    this.lines = new SyncLineSource(scan.file);
    this.layout = layout;
    this.parser = new TraceLineParser(layout);
    this.headerPending = scan.read.headerSkipped;
    this.usPerTraceS = 1e6 / speed;
  }

  next(into: ScheduledRequest): boolean {
    if (this.groupAt >= this.groupSize && !this.readGroup()) return false;
    const i = this.groupAt++;
    into.seq = this.seq++;
    into.intendedAtUs = Math.floor(this.groupStartUs + (this.groupSpanUs * i) / this.groupSize);
    into.client = this.clients[i]!;
    into.kind = this.kinds[i]!;
    into.batchSize = 1;
    into.valueSize = this.valueSizes[i]!;
    into.ttlUs = this.ttlsUs[i]!;
    this.key[0] = this.keys[i]!;
    into.keys = this.key;
    return true;
  }

  close(): void {
    this.lines.close();
  }

  /** Reads every request of the next timestamp in the window (and the first of the one after); false when the window is over. */
  private readGroup(): boolean {
    let n = 0;
    let groupS = this.heldS;
    if (this.held) {
      this.moveHeld();
      n = 1;
      this.held = false;
    }
    while (this.readRequest()) {
      const t = this.parser.request.timestamp;
      if (n === 0) groupS = t;
      this.keep(n);
      if (t !== groupS) {
        this.held = true;
        this.heldS = t;
        break;
      }
      n++;
    }
    this.groupSize = n;
    this.groupAt = 0;
    if (n === 0) return false;
    this.groupStartUs = (groupS - this.scan.startS) * this.usPerTraceS;
    this.groupSpanUs = Math.min(this.scan.stepS, this.scan.endS - groupS) * this.usPerTraceS;
    return true;
  }

  /** The next request of the window into the parser's request; false past the window's end. */
  private readRequest(): boolean {
    while (this.lines.next()) {
      const { bytes, start, end } = this.lines.line;
      if (end === start) continue;
      if (this.headerPending) {
        this.readHeader(bytes.toString('latin1', start, end));
        continue;
      }
      if (!this.parser.parse(bytes, start, end)) continue;
      const t = this.parser.request.timestamp;
      if (t < this.scan.startS) continue;
      if (t < this.scan.endS) return true;
      this.lines.close();
      return false;
    }
    return false;
  }

  private readHeader(header: string): void {
    this.headerPending = false;
    if (this.layout.headerNames === undefined) return;
    this.layout = resolveHeader(this.layout, header.split(String.fromCharCode(this.layout.delimiter)));
    this.parser = new TraceLineParser(this.layout);
  }

  /** The parsed request's fields at position i of the group. */
  private keep(i: number): void {
    if (i >= this.keys.length) this.grow();
    const r = this.parser.request;
    const key = this.scan.keyIds.get(r.key);
    const kind = r.operation < OTHER_OPERATION ? this.scan.kindOfOperation[r.operation] : this.scan.kindOfOther.get(r.otherOperation);
    if (key === undefined || kind === undefined || kind < 0) throw new InputFileError(this.scan.file, `line ${this.lines.line.number}: changed since the replay first read it`);
    this.keys[i] = key;
    this.kinds[i] = kind;
    this.clients[i] = this.scan.clientOf.get(r.client) ?? this.scan.clients.length - 1;
    this.valueSizes[i] = r.valueSize;
    this.ttlsUs[i] = r.ttl * 1e6;
  }

  private moveHeld(): void {
    const from = this.groupSize;
    this.keys[0] = this.keys[from]!;
    this.kinds[0] = this.kinds[from]!;
    this.clients[0] = this.clients[from]!;
    this.valueSizes[0] = this.valueSizes[from]!;
    this.ttlsUs[0] = this.ttlsUs[from]!;
  }

  private grow(): void {
    const size = this.keys.length * 2;
    this.keys = grown(this.keys, new Uint32Array(size));
    this.kinds = grown(this.kinds, new Int32Array(size));
    this.clients = grown(this.clients, new Int32Array(size));
    this.valueSizes = grown(this.valueSizes, new Float64Array(size));
    this.ttlsUs = grown(this.ttlsUs, new Float64Array(size));
  }
}

function grown<T extends Uint32Array | Int32Array | Float64Array>(from: T, into: T): T {
  into.set(from);
  return into;
}
