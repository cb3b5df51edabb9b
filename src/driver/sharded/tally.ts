import { hitRatioOf, type ShardLoad, shardLoad } from '../../profile/protocols/sharded.ts';
import { SHARED_GAUGES, gaugeKey, type GaugeSpec } from '../../recorder/gauges.ts';
import type { TransportRun } from '../transport.ts';
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

/** The fields every sharded cache's transport report shares (memcached's, Redis's). */
export interface ShardedCounts extends ShardLoad {
  hits: number;
  misses: number;
  hitRatio: number;
  connects: number;
  protocolErrors: number;
}

/**
 * What a client-side sharded cache transport keeps alike whatever its protocol: its connections
 * (`connections[shard * perShard + i]`), the slots whose shard parts are still unanswered, hits and
 * misses, keys per shard; and from them the timeouts, the close, the interval gauges and the
 * report's shared fields. The protocol's transport owns only its wire: what it sends and how it
 * reads the answers.
 */
export class ShardedTally<C extends CacheConnection> {
  hits = 0;
  misses = 0;
  /** Per slot: shard parts still unanswered (0 when the slot is free or done). */
  readonly partsPending: Int32Array;
  readonly keysByShard: Float64Array;
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
  ) {
    this.partsPending = new Int32Array(run.inFlightCap);
    const shards = connections.length / perShard;
    this.keysByShard = new Float64Array(shards);
    this.lastKeysByShard = new Float64Array(shards);
  }

  /** A read's keys, once every shard answered. */
  answered(asked: number, found: number): void {
    this.hits += found;
    this.misses += asked - found;
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

  counts(): ShardedCounts {
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
