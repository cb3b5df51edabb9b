import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { Rng } from '../../src/schedule/rng.ts';
import { ZipfSampler } from '../../src/schedule/zipf.ts';

/*
 * A trace in the public cache-trace format, generated from known parameters, so a test (or the
 * trace benchmark) can check that what stampede reads back is what was put in. Seeded: the same
 * spec writes the same bytes.
 */

export interface SyntheticTraceSpec {
  seed: number;
  requests: number;
  /** Requests per second, constant; timestamps are whole seconds, as in the public traces. */
  ratePerS: number;
  /** Later rates: from `fromS` on, this many requests a second. */
  rateChanges?: { fromS: number; ratePerS: number }[];
  /** A hot-key episode: from `fromS` to `toS`, this share of requests goes to `key`. */
  hot?: { key: string; fromS: number; toS: number; share: number };
  /** Keys drawn by Zipf(alpha) over this many ranks. */
  keys: number;
  zipfAlpha: number;
  /** Share of requests that go to a key never seen before or again (a one-hit wonder). */
  oneHitShare?: number;
  /** Operation shares (they need not sum to 1: they are weights). */
  operations: Record<string, number>;
  /** Mean value size, bytes: each key's size is drawn once, exponentially, so sizes vary per key and stay with it. */
  valueSizeMean: number;
  /** TTLs (seconds) set by writes, with weights. */
  ttls?: { ttlS: number; weight: number }[];
  /** Client ids with weights. */
  clients?: { id: string; weight: number }[];
  /** Timestamp of the first request. */
  start?: number;
}

const WRITES = new Set(['set', 'add', 'replace', 'cas', 'append', 'prepend', 'incr', 'decr']);

/** Writes the trace to `file` (plain text); returns the number of lines. */
export function writeSyntheticTrace(file: string, spec: SyntheticTraceSpec): number {
  const rng = new Rng(spec.seed);
  const zipf = new ZipfSampler(spec.keys, spec.zipfAlpha, rng);
  const pickOperation = weighted(Object.entries(spec.operations), rng);
  const pickTtl = weighted(
    (spec.ttls ?? [{ ttlS: 0, weight: 1 }]).map((t) => [t.ttlS, t.weight] as const),
    rng,
  );
  const pickClient = weighted(
    (spec.clients ?? [{ id: '1', weight: 1 }]).map((c) => [c.id, c.weight] as const),
    rng,
  );
  const fd = openSync(file, 'w');
  const clock = timestamps(spec);
  let chunk = '';
  let oneHits = 0;
  try {
    for (let i = 0; i < spec.requests; i++) {
      const second = clock();
      const hot = spec.hot !== undefined && second >= spec.hot.fromS && second < spec.hot.toS && rng.next() < spec.hot.share;
      const oneHit = !hot && rng.next() < (spec.oneHitShare ?? 0);
      const rank = oneHit ? spec.keys + ++oneHits : zipf.next();
      const key = hot ? spec.hot!.key : `k:${rank.toString(36)}`;
      const operation = pickOperation();
      const ttl = WRITES.has(operation) ? pickTtl() : 0;
      chunk += `${(spec.start ?? 0) + second},${key},${key.length},${valueSizeOf(rank, spec)},${pickClient()},${operation},${ttl}\n`;
      if (chunk.length > 1 << 16) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  return spec.requests;
}

/** Each request's second: `ratePerS` requests a second, then each change's rate from its second on. */
function timestamps(spec: SyntheticTraceSpec): () => number {
  const changes = [...(spec.rateChanges ?? [])].sort((a, b) => a.fromS - b.fromS);
  let second = 0;
  let inSecond = 0;
  let rate = spec.ratePerS;
  return () => {
    if (inSecond >= rate) {
      second++;
      inSecond = 0;
      while (changes.length > 0 && changes[0]!.fromS <= second) rate = changes.shift()!.ratePerS;
    }
    inSecond++;
    return second;
  };
}

/** The file compressed with the zstd command (Debian's zstd, which the test dependencies install); returns the .zst path. */
export function zstdCompress(file: string): string {
  execFileSync('zstd', ['-q', '-f', '-3', file, '-o', `${file}.zst`]);
  return `${file}.zst`;
}

/** A key's value size: drawn once per rank from an exponential of the mean (a hash of the rank, not the stream, so it stays with the key). */
function valueSizeOf(rank: number, spec: SyntheticTraceSpec): number {
  const u = new Rng(spec.seed ^ Math.imul(rank, 0x9e3779b1)).next();
  return Math.max(1, Math.round(-Math.log1p(-u) * spec.valueSizeMean));
}

function weighted<T>(entries: readonly (readonly [T, number])[], rng: Rng): () => T {
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  return () => {
    let u = rng.next() * total;
    for (const [value, w] of entries) if ((u -= w) < 0) return value;
    return entries.at(-1)![0];
  };
}
