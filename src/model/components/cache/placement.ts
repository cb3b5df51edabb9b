import { keyIds } from '../../../schedule/keys.ts';
import type { HashName } from '../../../profile/topology/index.ts';
import type { Keyspace } from '../../../schedule/types.ts';
import { hashKey } from '../../hash/index.ts';
import { KetamaRing } from './ring.ts';

const UNKNOWN_SHARD = 0xffffffff;

export interface PlacementConfig {
  /** Names the ketama points, as a client would (`name-s:11211`). */
  cacheName: string;
  hash: HashName;
  placement: 'modulo' | 'ketama';
  /** Shards in the ring at the start, and slots for every shard the timeline may add. */
  shards: number;
  slots: number;
  keyspace: Keyspace;
}

/**
 * Which shard holds a key: its hash (computed once per key) through modulo or a ketama ring over
 * the shards currently in the ring. A membership change re-places keys lazily.
 */
export class ShardPlacement {
  /** Shards in the ring (members), and the list of them in slot order. */
  active: number;
  private readonly members: Int32Array;
  private readonly inRing: Uint8Array;
  /** Next never-used slot (timeline additions take slots in order, after the removed ones). */
  private nextSpare: number;
  /** Shards the timeline removed, most recent last: an addition brings these back first (a rejoin). */
  private readonly removed: number[] = [];
  private readonly shardOfKey: Uint32Array;
  private readonly keyHash: Uint32Array;
  private readonly hashKnown: Uint8Array;
  private readonly ring: KetamaRing | null;
  private readonly slots: number;

  constructor(private readonly config: PlacementConfig) {
    const { slots, shards, keyspace } = config;
    const keyTotal = keyIds(keyspace);
    this.slots = slots;
    this.active = shards;
    this.members = new Int32Array(slots);
    this.inRing = new Uint8Array(slots);
    for (let sh = 0; sh < shards; sh++) this.inRing[sh] = 1;
    this.nextSpare = shards;
    this.shardOfKey = new Uint32Array(keyTotal).fill(UNKNOWN_SHARD);
    this.keyHash = new Uint32Array(keyTotal);
    this.hashKnown = new Uint8Array(keyTotal);
    this.ring = config.placement === 'ketama' ? new KetamaRing((s) => `${config.cacheName}-${s}:11211`) : null;
    this.rebuild();
  }

  shardOf(key: number): number {
    let shard = this.shardOfKey[key]!;
    if (shard === UNKNOWN_SHARD) {
      shard = this.place(this.hashOf(key));
      this.shardOfKey[key] = shard;
    }
    return shard;
  }

  /**
   * The key's shard in a view that excludes the shards `usable` rejects: the next usable server on
   * the ketama ring (modulo placement has no "next": hash mod usable servers). -1 when none is usable.
   */
  shardAvoiding(key: number, usable: (shard: number) => boolean): number {
    const hash = this.hashOf(key);
    if (this.ring !== null) return this.ring.ownerSkipping(hash, usable);
    let live = 0;
    for (let i = 0; i < this.active; i++) if (usable(this.members[i]!)) live++;
    if (live === 0) return -1;
    let pick = hash % live;
    for (let i = 0; i < this.active; i++) if (usable(this.members[i]!) && pick-- === 0) return this.members[i]!;
    return -1;
  }

  isMember(shard: number): boolean {
    return this.inRing[shard] === 1;
  }

  /**
   * One shard joins (`delta` > 0: the one removed last rejoins, else a never-used slot) or the
   * highest-numbered leaves (< 0). Returns that shard, or -1 when nothing changed.
   */
  resize(delta: number): number {
    let shard = -1;
    if (delta > 0 && this.removed.length > 0) shard = this.removed.pop()!;
    else if (delta > 0 && this.nextSpare < this.slots) shard = this.nextSpare++;
    else if (delta < 0 && this.active > 1) {
      shard = this.members[this.active - 1]!;
      this.removed.push(shard);
    } else return -1;
    this.inRing[shard] = delta > 0 ? 1 : 0;
    this.rebuild();
    return shard;
  }

  /** True when some shard the timeline removed is still out: the next addition is a rejoin. */
  get hasRemoved(): boolean {
    return this.removed.length > 0;
  }

  /** A named shard leaves (a later addition brings it back); false when it is not in the ring or is the last. */
  remove(shard: number): boolean {
    if (this.inRing[shard] !== 1 || this.active <= 1) return false;
    this.removed.push(shard);
    this.leave(shard);
    return true;
  }

  join(shard: number): void {
    this.inRing[shard] = 1;
    this.rebuild();
  }

  leave(shard: number): void {
    this.inRing[shard] = 0;
    this.rebuild();
  }

  private rebuild(): void {
    let n = 0;
    for (let sh = 0; sh < this.slots; sh++) if (this.inRing[sh] === 1) this.members[n++] = sh;
    this.active = n;
    this.ring?.build(Array.from(this.members.subarray(0, n)));
    this.shardOfKey.fill(UNKNOWN_SHARD);
  }

  private hashOf(key: number): number {
    if (this.hashKnown[key] === 0) {
      this.keyHash[key] = hashKey(this.config.hash, this.config.keyspace.keyName(key));
      this.hashKnown[key] = 1;
    }
    return this.keyHash[key]!;
  }

  private place(hash: number): number {
    if (this.active === 1) return this.members[0]!;
    return this.ring !== null ? this.ring.owner(hash) : this.members[hash % this.active]!;
  }
}
