import { GrowableArray } from './growable.ts';
import { type HotKeyEpisode, hotKeyEpisodes } from './hot-keys.ts';
import { isWrite, OTHER_OPERATION, TRACE_OPERATIONS, type TraceRequest } from './request.ts';
import { SizeHistogram } from './size-histogram.ts';
import { fitZipf, type ZipfFit } from './zipf-fit.ts';

/*
 * The statistics of a trace, in the terms of the published per-cluster table (twitter/cache-trace
 * stat/2020Mar.md: key and value size, request rate, mean object frequency, one-hit-wonder and
 * compulsory miss ratios, common TTLs, working set, operation mix, Zipf alpha), plus what a test
 * needs to look like it: the rate over time, the clients, and the hot keys minute by minute. One
 * pass, memory bounded by the distinct keys and clients, never by the lines.
 */

/** Keys named per minute in the hot-key series. */
const HOT_KEYS_PER_MINUTE = 5;
/** Clients named in the statistics (the rest are counted). */
const CLIENTS_NAMED = 20;
/** TTLs named (the rest are summed as other). */
const TTLS_NAMED = 8;

export interface HotKeysMinute {
  /** Minutes since the trace's first request. */
  minute: number;
  requests: number;
  top: { key: string; share: number }[];
}

export interface TraceStats {
  requests: number;
  /** Seconds from the first request's second to the last's, both counted (0 for an empty trace). */
  durationS: number;
  firstTimestamp: number;
  rate: { meanPerS: number; peakPerS: number; lowestPerS: number; perMinute: number[] };
  keys: {
    distinct: number;
    /** Requests per distinct key (the table's mean object frequency). */
    meanFrequency: number;
    /** Share of keys requested exactly once. */
    oneHitWonderRatio: number;
    /** Share of requests that are a key's first: misses no cache can avoid. */
    compulsoryMissRatio: number;
    /** Mean key size over requests, bytes. */
    sizeMean: number;
    /** Bytes of every key seen and its last value: what a cache must hold to miss only compulsorily (TTLs aside). */
    workingSetBytes: number;
    zipf?: ZipfFit;
    /** Share of requests on the most popular 1, 10, 100 and 1,000 keys. */
    topShares: { keys: number; share: number }[];
  };
  values: { sizeMean: number; p50: number; p90: number; p99: number; max: number; requestsWithValue: number };
  /** Share of requests per operation; only operations the trace holds. */
  operations: Record<string, number>;
  /** Among writes: TTL (seconds) and its share, most common first. */
  ttls: { ttlS: number; share: number }[];
  clients: { distinct: number; top: { client: string; requests: number; share: number; meanPerS: number }[] };
  hotKeys: HotKeysMinute[];
  /** Keys whose share of some minutes rose well above their share of the trace, as keys.hot would say it (traces of 3 minutes or more). */
  hotKeyEpisodes: HotKeyEpisode[];
}

export class TraceStatistics {
  private requests = 0;
  private firstTimestamp = Number.NaN;
  private lastTimestamp = 0;
  private keySizeSum = 0;
  private readonly keyIds = new Map<string, number>();
  private readonly keyNames: string[] = [];
  private readonly keyCounts = new GrowableArray();
  /** Each key's requests in one random half: the half its popularity rank is fitted from (zipf-fit.ts says why). */
  private readonly keyCountsEven = new GrowableArray();
  /** xorshift32: which half a request falls in, drawn (not its parity: a trace of alternating callers would split by caller). */
  private halfState = 0x9e3779b9;
  private readonly keyBytes = new GrowableArray();
  private readonly valueBytes = new GrowableArray();
  private readonly perSecond = new GrowableArray();
  private readonly operations = new Float64Array(OTHER_OPERATION + 1);
  private readonly otherOperations = new Map<string, number>();
  private readonly ttls = new Map<number, number>();
  /** TTL (seconds) → writes, per operation (index as `operations`). */
  readonly ttlsByOperation = Array.from({ length: OTHER_OPERATION + 1 }, () => new Map<number, number>());
  private writes = 0;
  private readonly clients = new Map<string, number>();
  /** Value sizes of every request that carries one. */
  readonly valueSizes = new SizeHistogram();
  /** Value sizes per operation (index as `operations`): what each kind of request carries. */
  readonly valueSizesByOperation = Array.from({ length: OTHER_OPERATION + 1 }, () => new SizeHistogram());
  private minute = 0;
  private minuteRequests = 0;
  private readonly minuteTop = new MinuteTopKeys(HOT_KEYS_PER_MINUTE);
  private readonly hotKeys: HotKeysMinute[] = [];

  add(r: TraceRequest): void {
    if (this.requests === 0) this.firstTimestamp = r.timestamp;
    this.requests++;
    // A trace is in time order; a request stamped before the first (clock skew between hosts) counts in the first second.
    const second = Math.max(0, Math.floor(r.timestamp - this.firstTimestamp));
    if (r.timestamp > this.lastTimestamp) this.lastTimestamp = r.timestamp;
    this.perSecond.add(second, 1);
    this.countKey(r, Math.floor(second / 60));
    this.operations[r.operation]!++;
    if (r.operation === OTHER_OPERATION) this.otherOperations.set(r.otherOperation, (this.otherOperations.get(r.otherOperation) ?? 0) + 1);
    if (isWrite(r.operation)) {
      this.writes++;
      this.ttls.set(r.ttl, (this.ttls.get(r.ttl) ?? 0) + 1);
      const byOperation = this.ttlsByOperation[r.operation]!;
      byOperation.set(r.ttl, (byOperation.get(r.ttl) ?? 0) + 1);
    }
    this.clients.set(r.client, (this.clients.get(r.client) ?? 0) + 1);
    if (r.valueSize > 0) {
      this.valueSizes.record(r.valueSize);
      this.valueSizesByOperation[r.operation]!.record(r.valueSize);
    }
  }

  result(): TraceStats {
    this.closeMinute();
    // The seconds the trace touches: whole-second stamps 0..119 span 120 s.
    const durationS = this.perSecond.length;
    return {
      requests: this.requests,
      durationS,
      firstTimestamp: this.requests > 0 ? this.firstTimestamp : 0,
      rate: this.rate(durationS),
      keys: this.keyStats(),
      values: this.valueStats(),
      operations: this.operationShares(),
      ttls: this.ttlShares(),
      clients: this.clientStats(durationS),
      hotKeys: this.hotKeys,
      hotKeyEpisodes: durationS >= 180 ? hotKeyEpisodes(this.hotKeys, (key) => this.requestsOf(key), this.requests) : [],
    };
  }

  /** Requests in each second of the trace (from its first), shared: what a fit follows the rate curve by. */
  perSecondView(): Float64Array {
    return this.perSecond.view();
  }

  /** The Zipf fit of every key's popularity but the keys named (a hot key's episode is not the keyspace's law). */
  zipfWithout(keys: readonly string[]): ZipfFit | undefined {
    const distinct = this.keyNames.length;
    const counts = this.keyCounts.view();
    const even = new Float64Array(distinct);
    even.set(this.keyCountsEven.view());
    const odd = counts.map((n, id) => n - even[id]!);
    for (const key of keys) {
      const id = this.keyIds.get(key);
      if (id !== undefined) even[id] = odd[id] = 0;
    }
    return fitZipf(even, odd, distinct);
  }

  /** A key's requests. */
  requestsOf(key: string): number {
    const id = this.keyIds.get(key);
    return id === undefined ? 0 : this.keyCounts.get(id);
  }

  /** Every key seen, by id (first-seen order), with its requests. */
  keysView(): { names: readonly string[]; counts: Float64Array } {
    return { names: this.keyNames, counts: this.keyCounts.view() };
  }

  private countKey(r: TraceRequest, minute: number): void {
    let id = this.keyIds.get(r.key);
    if (id === undefined) {
      id = this.keyNames.length;
      this.keyIds.set(r.key, id);
      this.keyNames.push(r.key);
    }
    this.keyCounts.add(id, 1);
    if (this.nextHalf() === 0) this.keyCountsEven.add(id, 1);
    this.keySizeSum += r.keySize;
    this.keyBytes.set(id, r.keySize);
    if (r.valueSize > 0) this.valueBytes.set(id, r.valueSize);
    if (minute !== this.minute) {
      this.closeMinute();
      this.minute = minute;
    }
    this.minuteRequests++;
    this.minuteTop.count(id, minute);
  }

  private nextHalf(): number {
    let x = this.halfState;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.halfState = x >>> 0;
    return this.halfState >>> 31;
  }

  private closeMinute(): void {
    if (this.minuteRequests === 0) return;
    const top = this.minuteTop.take();
    this.hotKeys.push({ minute: this.minute, requests: this.minuteRequests, top: top.map(([id, n]) => ({ key: this.keyNames[id]!, share: n / this.minuteRequests })) });
    this.minuteRequests = 0;
  }

  private rate(durationS: number): TraceStats['rate'] {
    const seconds = this.perSecond.view();
    const perMinute: number[] = [];
    for (let m = 0; m * 60 < seconds.length; m++) {
      const span = seconds.subarray(m * 60, Math.min(seconds.length, (m + 1) * 60));
      // The last minute may be part of one: its rate is over the seconds it holds.
      perMinute.push(span.reduce((a, b) => a + b, 0) / span.length);
    }
    let peak = 0;
    let lowest = Number.POSITIVE_INFINITY;
    for (const n of seconds) {
      if (n > peak) peak = n;
      if (n < lowest) lowest = n;
    }
    return { meanPerS: durationS > 0 ? this.requests / durationS : 0, peakPerS: peak, lowestPerS: Number.isFinite(lowest) ? lowest : 0, perMinute };
  }

  private keyStats(): TraceStats['keys'] {
    const distinct = this.keyNames.length;
    const counts = this.keyCounts.view();
    let once = 0;
    let workingSet = 0;
    for (let id = 0; id < distinct; id++) {
      if (counts[id] === 1) once++;
      workingSet += this.keyBytes.get(id) + this.valueBytes.get(id);
    }
    const sorted = Float64Array.from(counts).sort().reverse();
    const zipf = this.zipfWithout([]);
    return {
      distinct,
      meanFrequency: distinct > 0 ? this.requests / distinct : 0,
      oneHitWonderRatio: distinct > 0 ? once / distinct : 0,
      compulsoryMissRatio: this.requests > 0 ? distinct / this.requests : 0,
      sizeMean: this.requests > 0 ? this.keySizeSum / this.requests : 0,
      workingSetBytes: workingSet,
      ...(zipf && { zipf }),
      topShares: topShares(sorted, this.requests),
    };
  }

  private valueStats(): TraceStats['values'] {
    const h = this.valueSizes;
    return { sizeMean: h.mean, p50: h.percentile(50), p90: h.percentile(90), p99: h.percentile(99), max: h.max, requestsWithValue: h.total };
  }

  private operationShares(): Record<string, number> {
    const shares: Record<string, number> = {};
    TRACE_OPERATIONS.forEach((name, i) => {
      if (this.operations[i]! > 0) shares[name] = this.operations[i]! / this.requests;
    });
    for (const [name, n] of this.otherOperations) shares[name] = n / this.requests;
    return shares;
  }

  private ttlShares(): TraceStats['ttls'] {
    return [...this.ttls.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, TTLS_NAMED)
      .map(([ttlS, n]) => ({ ttlS, share: n / this.writes }));
  }

  private clientStats(durationS: number): TraceStats['clients'] {
    const top = [...this.clients.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, CLIENTS_NAMED);
    return {
      distinct: this.clients.size,
      top: top.map(([client, requests]) => ({ client, requests, share: requests / this.requests, meanPerS: requests / durationS })),
    };
  }
}

/** Share of all requests on the most popular 1, 10, 100, 1,000 keys (while the trace has that many); counts most popular first. */
function topShares(sorted: Float64Array, requests: number): { keys: number; share: number }[] {
  if (requests === 0) return [];
  const shares: { keys: number; share: number }[] = [];
  let sum = 0;
  let next = 1;
  for (let i = 0; i < sorted.length && next <= 1000; i++) {
    sum += sorted[i]!;
    if (i + 1 === next) {
      shares.push({ keys: next, share: sum / requests });
      next *= 10;
    }
  }
  return shares;
}

/**
 * The k busiest keys of the current minute, exact, without a map of the minute's keys: each key's
 * count in its last minute lives beside its id, and a list of k ids is kept as the top. Counts only
 * rise within a minute, so a key outside the list enters exactly when it passes the list's lowest.
 */
class MinuteTopKeys {
  private readonly minuteOf = new GrowableArray();
  private readonly counts = new GrowableArray();
  private readonly top: number[] = [];

  constructor(private readonly k: number) {}

  count(id: number, minute: number): void {
    // Minutes are stored + 1 so a key never seen (0) is never taken for minute 0.
    const n = this.minuteOf.get(id) === minute + 1 ? this.counts.get(id) + 1 : 1;
    this.minuteOf.set(id, minute + 1);
    this.counts.set(id, n);
    if (this.top.includes(id)) return;
    if (this.top.length < this.k) return void this.top.push(id);
    let lowest = 0;
    for (let i = 1; i < this.top.length; i++) if (this.counts.get(this.top[i]!) < this.counts.get(this.top[lowest]!)) lowest = i;
    if (n > this.counts.get(this.top[lowest]!)) this.top[lowest] = id;
  }

  /** The minute's top keys and their counts, busiest first; the list starts empty for the next minute. */
  take(): [id: number, count: number][] {
    const top = this.top.map((id) => [id, this.counts.get(id)] as [number, number]).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    this.top.length = 0;
    return top;
  }
}
