import type { ModelContext } from '../../core/context.ts';
import type { ShardedLru } from './lru.ts';

/** Why a stale read's copy was out of date. */
export const STALE_CAUSES = ['failedSet', 'markDown', 'outage', 'restart', 'membership'] as const;
export type StaleCause = (typeof STALE_CAUSES)[number];
/** What a shard can come back from: the causes `rejoin` names. */
export type RejoinCause = Exclude<StaleCause, 'failedSet'>;

const CODES: Readonly<Record<StaleCause, number>> = { failedSet: 0, markDown: 1, outage: 2, restart: 3, membership: 4 };

export function staleReadCounts(): Record<StaleCause, number> {
  return { failedSet: 0, markDown: 0, outage: 0, restart: 0, membership: 0 };
}

/**
 * Why each copy (key, shard) fell behind, recorded when it happens, read when a stale copy is hit.
 * A copy falls behind when a write goes past it: a writer that holds its shard dead writes
 * elsewhere (markDown), or its shard was away — an outage, a restart, out of the ring — and came
 * back warm with what it held (the cause it came back from). Otherwise the write's set never
 * landed (failedSet: lost, timed out). A hit off the key's own shard is always markDown: only a
 * client routing around a node it ejected reads there.
 */
export class StaleCopies {
  /** Per (key, shard) entry: the cause code; 0 (failedSet) until a cause is recorded. */
  private readonly cause: Uint8Array;

  constructor(
    private readonly ctx: ModelContext,
    private readonly lru: ShardedLru,
    private readonly keyCount: number,
    readonly byCause: Record<StaleCause, number>,
  ) {
    // One per (key, shard) entry, as the versions (none without copies).
    this.cause = new Uint8Array(lru.version.length);
  }

  /** A write of `key` went past `shard`, its owner, because the writer holds the shard dead. */
  bypassed(key: number, shard: number): void {
    if (this.lru.holds(key, shard)) this.cause[this.lru.entry(key, shard)] = CODES.markDown;
  }

  /** `shard` came back warm from `cause`: the copies it holds that are already behind fell behind while it was away. */
  survived(shard: number, cause: Exclude<RejoinCause, 'markDown'>): void {
    const versions = this.lru.version;
    const newest = this.ctx.keyVersion;
    for (let key = 0; key < this.keyCount; key++) {
      if (!this.lru.holds(key, shard)) continue;
      const entry = this.lru.entry(key, shard);
      if (versions[entry]! < newest[key]!) this.cause[entry] = CODES[cause];
    }
  }

  /** The copy at `entry` is current again. */
  stored(entry: number): void {
    this.cause[entry] = CODES.failedSet;
  }

  /** A hit on a copy stale beyond the write window, on `shard` where the key's own shard is `home`. */
  count(entry: number, shard: number, home: number): void {
    const code = shard !== home ? CODES.markDown : this.cause[entry]!;
    this.byCause[STALE_CAUSES[code]!]++;
  }
}
