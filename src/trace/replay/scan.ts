import { InputFileError } from '../../files/input-file.ts';
import { memcachedKeyProblem, shownKey } from '../../profile/memcached-keys.ts';
import type { TraceLayout } from '../columns.ts';
import { empiricalSizes } from '../fit/mix.ts';
import { GrowableArray } from '../growable.ts';
import { readTrace, type TraceReadOptions, type TraceReadSummary } from '../read.ts';
import { OTHER_OPERATION, TRACE_OPERATIONS, type TraceRequest } from '../request.ts';
import { SizeHistogram } from '../size-histogram.ts';
import { fitZipf } from '../zipf-fit.ts';

/*
 * A replay's first pass over its trace: what the run's plan must know before the first request is
 * sent — how many requests the window holds, of which kinds and clients, over how long — and the
 * trace's keys, each given an id in the order first seen. Memory is a slot per distinct key and
 * client, never the file. A pass past the window's end stops reading there.
 */

/** Clients a replay keeps apart; the rest are one "other clients" (a trace has thousands, each would be a breakdown in every report). */
export const REPLAY_CLIENTS = 15;
export const OTHER_CLIENTS = 'other-clients';

/** Seconds from the trace's first request: requests at fromS ≤ t − first < toS are replayed. */
export interface ReplayWindow {
  fromS: number;
  toS: number;
}

export interface TraceScan {
  file: string;
  read: TraceReadSummary;
  /** The window in the trace's own clock, s: [startS, endS). endS is the last request's second plus a step when the window ends later. */
  startS: number;
  endS: number;
  /** The trace's time step: the smallest gap between two distinct timestamps (its unit when all are one), s. */
  stepS: number;
  requests: number;
  /** The window's operations, in the format's order, then other words as first seen; with their request counts. */
  kinds: string[];
  kindRequests: number[];
  /** Kind index of each TRACE_OPERATIONS index (−1: not in the window), and of the other words. */
  kindOfOperation: Int32Array;
  kindOfOther: Map<string, number>;
  /** The busiest REPLAY_CLIENTS clients, named as a profile names clients, and OTHER_CLIENTS when there are more. */
  clients: { name: string; requests: number }[];
  /** Plan client of each kept client id as written in the trace (the others are the last). */
  clientOf: Map<string, number>;
  /** Key ids in first-seen order. */
  keyIds: Map<string, number>;
  keyNames: string[];
  /** The first key a memcached server would refuse, with its line. */
  unfitKey?: { line: number; message: string };
  /** How the window's traffic looks, for the profile that describes it: its keys' Zipf exponent (undefined: too few repeats to say), its value sizes. */
  zipfAlpha: number | undefined;
  valueSizes: ReturnType<typeof empiricalSizes> | undefined;
}

/**
 * The first pass; undefined when the caller's signal stopped it (nothing was sent, nothing to write).
 * @throws InputFileError naming the file and line: unreadable, out of time order, malformed, or a window with no request
 */
export async function scanTrace(file: string, layout: TraceLayout, window: ReplayWindow, options: TraceReadOptions): Promise<TraceScan | undefined> {
  const scan = new Scanner(file, window);
  // The read stops at the window's end, or at the caller's signal.
  const stop = new AbortController();
  const abort = () => stop.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  scan.onEnd = abort;
  try {
    const read = await readTrace(file, layout, (r, line) => scan.add(r, line), { ...options, signal: stop.signal });
    if (options.signal?.aborted) return undefined;
    return scan.result({ ...read, interrupted: false }, layout.secondsPerUnit);
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
}

class Scanner {
  onEnd: () => void = () => {};
  private originS = Number.NaN;
  private lastS = Number.NaN;
  private lastInWindowS = Number.NaN;
  private stepS = Number.POSITIVE_INFINITY;
  private requests = 0;
  private ended = false;
  private readonly operationRequests = new Float64Array(OTHER_OPERATION);
  private readonly otherRequests = new Map<string, number>();
  private readonly clientRequests = new Map<string, number>();
  private readonly keyIds = new Map<string, number>();
  private readonly keyNames: string[] = [];
  private unfitKey: TraceScan['unfitKey'];
  /** Each key's requests, and those of a pseudo-random half of them (the Zipf fit ranks by one half, reads the other: zipf-fit.ts). */
  private readonly keyRequests = new GrowableArray();
  private readonly keyRequestsHalf = new GrowableArray();
  private halfState = 0x9e3779b9;
  private readonly valueSizes = new SizeHistogram();

  constructor(
    private readonly file: string,
    private readonly window: ReplayWindow,
  ) {}

  add(r: TraceRequest, line: number): void {
    if (this.ended) return;
    const t = r.timestamp;
    if (Number.isNaN(this.originS)) this.originS = t;
    else if (t < this.lastS)
      throw new InputFileError(this.file, `line ${line}: field timestamp: ${t} is before the line before it (${this.lastS}); a trace is replayed in time order`);
    else if (t > this.lastS) this.stepS = Math.min(this.stepS, t - this.lastS);
    this.lastS = t;
    const sinceOrigin = t - this.originS;
    if (sinceOrigin < this.window.fromS) return;
    if (sinceOrigin >= this.window.toS) {
      this.ended = true;
      return this.onEnd();
    }
    this.requests++;
    this.lastInWindowS = t;
    if (r.operation < OTHER_OPERATION) this.operationRequests[r.operation]!++;
    else this.otherRequests.set(r.otherOperation, (this.otherRequests.get(r.otherOperation) ?? 0) + 1);
    this.clientRequests.set(r.client, (this.clientRequests.get(r.client) ?? 0) + 1);
    const id = this.keyIds.get(r.key) ?? this.newKey(r.key, line);
    this.keyRequests.add(id, 1);
    if (this.nextHalf() === 0) this.keyRequestsHalf.add(id, 1);
    if (r.valueSize > 0) this.valueSizes.record(r.valueSize);
  }

  /** xorshift32's top bit: which half a request falls in. */
  private nextHalf(): number {
    let x = this.halfState;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.halfState = x >>> 0;
    return this.halfState >>> 31;
  }

  private zipfAlpha(): number | undefined {
    const half = this.keyRequestsHalf.view();
    const all = this.keyRequests.view();
    const distinct = this.keyNames.length;
    const other = Float64Array.from({ length: distinct }, (_, i) => all[i]! - (half[i] ?? 0));
    const ranking = Float64Array.from({ length: distinct }, (_, i) => half[i] ?? 0);
    return fitZipf(ranking, other, distinct)?.alpha;
  }

  private newKey(key: string, line: number): number {
    const id = this.keyNames.length;
    this.keyIds.set(key, id);
    this.keyNames.push(key);
    if (this.unfitKey === undefined) {
      const problem = memcachedKeyProblem(key);
      if (problem !== undefined) this.unfitKey = { line, message: `line ${line}: field key: ${shownKey(key)} ${problem}` };
    }
    return id;
  }

  result(read: TraceReadSummary, unitS: number): TraceScan {
    const { fromS, toS } = this.window;
    if (this.requests === 0) {
      const span = Number.isNaN(this.originS) ? 'it holds no request' : `its requests span 0..${this.lastS - this.originS}s`;
      throw new InputFileError(this.file, `the window ${fromS}s..${toS === Number.POSITIVE_INFINITY ? '' : `${toS}s`} holds no request of the trace (${span})`);
    }
    const stepS = Number.isFinite(this.stepS) ? this.stepS : unitS;
    const startS = this.originS + fromS;
    const endS = Math.min(this.originS + toS, this.lastInWindowS + stepS);
    const kinds: string[] = [];
    const kindRequests: number[] = [];
    const kindOfOperation = new Int32Array(OTHER_OPERATION).fill(-1);
    TRACE_OPERATIONS.forEach((name, op) => {
      if (this.operationRequests[op] === 0) return;
      kindOfOperation[op] = kinds.push(name) - 1;
      kindRequests.push(this.operationRequests[op]!);
    });
    const kindOfOther = new Map<string, number>();
    for (const [word, n] of this.otherRequests) {
      kindOfOther.set(word, kinds.push(word) - 1);
      kindRequests.push(n);
    }
    const { clients, clientOf } = busiestClients(this.clientRequests);
    return {
      file: this.file,
      read,
      startS,
      endS,
      stepS,
      requests: this.requests,
      kinds,
      kindRequests,
      kindOfOperation,
      kindOfOther,
      clients,
      clientOf,
      keyIds: this.keyIds,
      keyNames: this.keyNames,
      ...(this.unfitKey !== undefined && { unfitKey: this.unfitKey }),
      zipfAlpha: this.zipfAlpha(),
      valueSizes: this.valueSizes.total > 0 ? empiricalSizes(this.valueSizes) : undefined,
    };
  }
}

/** The busiest clients kept apart (ties in first-seen order), the others together as one. */
function busiestClients(requests: Map<string, number>): Pick<TraceScan, 'clients' | 'clientOf'> {
  const ranked = [...requests].sort((a, b) => b[1] - a[1]);
  const kept = ranked.length > REPLAY_CLIENTS + 1 ? ranked.slice(0, REPLAY_CLIENTS) : ranked;
  const taken = new Set<string>([OTHER_CLIENTS]);
  const clients = kept.map(([name, n]) => ({ name: clientName(name, taken), requests: n }));
  const clientOf = new Map(kept.map(([name], i) => [name, i]));
  if (kept.length < ranked.length) clients.push({ name: OTHER_CLIENTS, requests: ranked.slice(kept.length).reduce((sum, [, n]) => sum + n, 0) });
  return { clients, clientOf };
}

/** A client id as a profile's client name: letters, digits, _ . - (a trace's ids are anything), unique. */
function clientName(id: string, taken: Set<string>): string {
  const base = id.replace(/[^A-Za-z0-9_.-]/g, '_') || 'trace';
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}
