import { keyIds } from '../../schedule/keys.ts';
import { KetamaRing } from '../../model/components/cache/ring.ts';
import { hashKey } from '../../model/hash/index.ts';
import type { HashName } from '../../profile/topology/index.ts';
import type { Keyspace } from '../../schedule/types.ts';
import type { ServerAddress } from '../../profile/protocols/address.ts';

/**
 * Client-side sharding: which server a key goes to. The key hash is the profile's (so FNV1-32's
 * weak last byte shows as skew, 2018-04); placement is `hash mod servers in the ring` or a ketama
 * ring. A key id's shard is computed once and cached, so the hot path is one typed-array read; a
 * membership change (the timeline) clears that cache, so keys rehash as a real client's would:
 * all of them under modulo, about 1/N under ketama.
 */
export class Sharding {
  private readonly cache: Int16Array;
  /** The model's ketama ring with servers named host:port, so model and real cluster place keys alike. */
  private readonly ring: KetamaRing | undefined;
  /** Server indexes in the ring, ascending. */
  private members: number[];

  constructor(
    private readonly hash: HashName,
    distribution: 'modulo' | 'ketama',
    private readonly servers: readonly ServerAddress[],
    private readonly keyspace: Keyspace,
    inRing: number = servers.length,
  ) {
    const ids = keyIds(keyspace);
    this.cache = new Int16Array(Math.min(ids, 1 << 22)).fill(-1); // ids past 4M are hashed every time
    this.members = servers.map((_, i) => i).slice(0, inRing);
    if (distribution === 'ketama') {
      this.ring = new KetamaRing((i) => `${servers[i]!.host}:${servers[i]!.port}`);
      this.ring.build(this.members);
    }
  }

  get shards(): number {
    return this.servers.length;
  }

  /** Puts a server into the ring or takes it out; every key is placed again from now on. */
  setInRing(server: number, inRing: boolean): void {
    const others = this.members.filter((m) => m !== server);
    this.members = inRing ? [...others, server].sort((a, b) => a - b) : others;
    this.ring?.build(this.members);
    this.cache.fill(-1);
  }

  shardOf(keyId: number): number {
    const cached = this.cache[keyId];
    if (cached !== undefined && cached >= 0) return cached;
    const shard = this.shardOfName(this.keyspace.keyName(keyId));
    if (cached !== undefined) this.cache[keyId] = shard;
    return shard;
  }

  shardOfName(name: string): number {
    const h = hashKey(this.hash, name);
    return this.ring ? this.ring.owner(h) : this.members[h % this.members.length]!;
  }
}
