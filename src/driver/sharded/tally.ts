import { hitRatioOf, type ShardedCounts, shardLoad } from '../../profile/protocols/sharded.ts';
import { SHARED_GAUGES, gaugeKey, type GaugeSpec } from '../../recorder/gauges.ts';
import { SOCKET_CAUSES, type TransportRun } from '../transport.ts';
import { SHARDED_GAUGES } from './gauges.ts';

/** A pipelined connection to one cache server, as the tally reads it. */
export interface CacheConnection {
  readonly host: string;
  readonly port: number;
  readonly connected: boolean;
  readonly connects: number;
  readonly protocolErrors: number;
  /** The slot waiting longest for its answer on this connection, or -1. */
  readonly oldest: number;
  abort(cause: string): void;
  close(): void;
}

/** Told of each read that completed without failure, before its slot is freed (memcached counts its keys per operation). */
export type OnRead = (slot: number, found: number, missed: number) => void;

/**
 * What a client-side sharded cache transport keeps alike whatever its protocol: its connections
 * (`connections[shard * perShard + i]`), each slot's state until every shard it touched answered
 * (parts unanswered, keys asked, keys found, its first failure), hits and misses, keys per shard;
 * and from them the completions, the timeouts, the close, the interval gauges and the report's
 * shared fields. The protocol's transport owns only its wire: what it sends and how it reads the
 * answers.
 */
export class ShardedTally<C extends CacheConnection> {
  hits = 0;
  misses = 0;
  /** Per slot: shard parts still unanswered (0 when the slot is free or done). */
  readonly partsPending: Int32Array;
  readonly keysByShard: Float64Array;
  /** Per slot: keys asked (0 for a write), keys found so far, first failure reason (0: none). */
  private readonly keysAsked: Int32Array;
  private readonly found: Int32Array;
  private readonly failure: Int32Array;
  private readonly reasons = new Map<string, number>();
  private readonly serverErrorReason: number;
  private readonly lastKeysByShard: Float64Array;
  private lastHits = 0;
  private lastMisses = 0;

  constructor(
    /** The gauges' instance: the protocol's name (hits.memcached, hits.redis). */
    private readonly instance: string,
    readonly connections: readonly C[],
    private readonly perShard: number,
    private readonly run: TransportRun,
    private readonly timeoutUs: number,
    private readonly onRead?: OnRead,
  ) {
    const cap = run.inFlightCap;
    this.partsPending = new Int32Array(cap);
    this.keysAsked = new Int32Array(cap);
    this.found = new Int32Array(cap);
    this.failure = new Int32Array(cap);
    for (const name of new Set(Object.values(SOCKET_CAUSES))) this.reasons.set(name, run.recorder.reason(name));
    this.serverErrorReason = run.recorder.reason('server_error');
    const shards = connections.length / perShard;
    this.keysByShard = new Float64Array(shards);
    this.lastKeysByShard = new Float64Array(shards);
  }

  /** A request taken into `slot`: `parts` answers to wait for (one per shard touched), `keysAsked` keys if it reads. */
  begin(slot: number, parts: number, keysAsked: number): void {
    this.partsPending[slot] = parts;
    this.keysAsked[slot] = keysAsked;
    this.found[slot] = 0;
    this.failure[slot] = 0;
  }

  /** A request counts as sent when its first part reaches a connected socket. */
  wired(slot: number): void {
    if (this.run.sentAtUs[slot]! < 0) this.run.markSent(slot, this.run.nowUs());
  }

  /** One of the slot's keys was found. */
  hit(slot: number): void {
    this.found[slot]!++;
  }

  /** The server answered one of the slot's parts with an error (the first failure is the request's). */
  serverError(slot: number): void {
    if (this.failure[slot] === 0) this.failure[slot] = this.serverErrorReason;
  }

  /** A part lost to its connection (`cause`: a SOCKET_CAUSES key). */
  failed(slot: number, cause: string): void {
    if (this.failure[slot] === 0) this.failure[slot] = this.reasonFor(SOCKET_CAUSES[cause] ?? 'socket_error');
    this.partDone(slot);
  }

  /** One of the slot's parts answered; the last one completes the request (a read's keys then count as hits and misses). */
  partDone(slot: number): void {
    if (--this.partsPending[slot]! > 0) return;
    const now = this.run.advance();
    const asked = this.keysAsked[slot]!;
    const failed = this.failure[slot]!;
    if (failed === 0 && asked > 0) {
      const found = Math.min(this.found[slot]!, asked);
      this.hits += found;
      this.misses += asked - found;
      this.onRead?.(slot, found, asked - found);
    }
    this.run.complete(slot, failed, now);
  }

  private reasonFor(name: string): number {
    let reason = this.reasons.get(name);
    if (reason === undefined) {
      reason = this.run.recorder.reason(name);
      this.reasons.set(name, reason);
    }
    return reason;
  }

  /** Aborts each connection whose oldest request has waited past the timeout. */
  timeOut(nowUs: number): void {
    for (const c of this.connections) {
      const oldest = c.oldest;
      if (oldest >= 0 && nowUs - this.run.waitingSinceUs(oldest) > this.timeoutUs) c.abort('timeout');
    }
  }

  close(reason: number): void {
    for (const c of this.connections) c.close();
    // Slots still in flight end as unfinished; partsPending says which.
    const now = this.run.nowUs();
    for (let slot = 0; slot < this.partsPending.length; slot++) {
      if (this.partsPending[slot]! > 0) {
        this.partsPending[slot] = 0;
        this.run.complete(slot, reason, now);
      }
    }
  }

  gauges(into: Record<string, number>): void {
    let open = 0;
    for (const c of this.connections) if (c.connected) open++;
    into[gaugeKey(SHARED_GAUGES.openConnections, this.instance)] = open;
    const hits = this.hits - this.lastHits;
    const misses = this.misses - this.lastMisses;
    into[gaugeKey(SHARDED_GAUGES.hits, this.instance)] = hits;
    into[gaugeKey(SHARDED_GAUGES.misses, this.instance)] = misses;
    into[gaugeKey(SHARED_GAUGES.hitRatio, this.instance)] = hitRatioOf(hits, misses);
    this.lastHits = this.hits;
    this.lastMisses = this.misses;
    for (let s = 0; s < this.keysByShard.length; s++) {
      into[gaugeKey(SHARDED_GAUGES.shardKeys, `shard${s}`)] = this.keysByShard[s]! - this.lastKeysByShard[s]!;
      this.lastKeysByShard[s] = this.keysByShard[s]!;
    }
  }

  readonly gaugeSpecs: readonly GaugeSpec[] = [SHARED_GAUGES.openConnections, SHARED_GAUGES.hitRatio, ...Object.values(SHARDED_GAUGES)];

  /** The report's shared fields but serverErrors, which each protocol names its own way. */
  counts(): Omit<ShardedCounts, 'serverErrors'> {
    const firstOfShard = this.connections.filter((_, i) => i % this.perShard === 0);
    return {
      hits: this.hits,
      misses: this.misses,
      hitRatio: hitRatioOf(this.hits, this.misses),
      ...shardLoad(
        firstOfShard.map((c) => `${c.host}:${c.port}`),
        Array.from(this.keysByShard),
      ),
      connects: this.connections.reduce((a, c) => a + c.connects, 0),
      protocolErrors: this.connections.reduce((a, c) => a + c.protocolErrors, 0),
    };
  }
}
