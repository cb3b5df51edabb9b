import { md5Digest } from '../../hash/md5.ts';

/** Points per server on a ketama ring: 40 MD5 digests × 4 points (libmemcached, twemproxy). */
const POINTS_PER_SERVER = 160;

/**
 * A ketama consistent-hash ring (libmemcached / twemproxy): each server contributes 160 points,
 * four per MD5 digest of "<server>-<i>"; a key belongs to the first point at or after its hash,
 * wrapping around. Adding a server moves only the keys that fall just before its points — about
 * 1/(N+1) of them — which is why membership changes rehash part, not all, of a keyspace.
 */
export class KetamaRing {
  private points = new Uint32Array(0);
  private owners = new Int32Array(0);

  constructor(private readonly serverName: (server: number) => string) {}

  /** Rebuilds the ring over the given servers (indexes). */
  build(servers: readonly number[]): void {
    const n = servers.length * POINTS_PER_SERVER;
    const pairs: [number, number][] = [];
    for (const server of servers) {
      const name = this.serverName(server);
      for (let i = 0; i < POINTS_PER_SERVER / 4; i++) {
        const d = md5Digest(`${name}-${i}`);
        for (let h = 0; h < 4; h++) {
          const point = (d[3 + h * 4]! << 24) | (d[2 + h * 4]! << 16) | (d[1 + h * 4]! << 8) | d[h * 4]!;
          pairs.push([point >>> 0, server]);
        }
      }
    }
    // Ties (astronomically rare) go to the lower server index, so the ring is a function of its members.
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    this.points = new Uint32Array(n);
    this.owners = new Int32Array(n);
    pairs.forEach(([p, s], i) => {
      this.points[i] = p;
      this.owners[i] = s;
    });
  }

  /** Index of the first point at or after `hash` (wrapping). */
  private firstPoint(hash: number): number {
    const points = this.points;
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (points[mid]! < hash) lo = mid + 1;
      else hi = mid;
    }
    return lo === points.length ? 0 : lo;
  }

  /** The server owning `hash`. */
  owner(hash: number): number {
    return this.owners[this.firstPoint(hash >>> 0)]!;
  }

  /**
   * The first server on the ring from `hash` onwards for which `usable` is true — how a client that
   * ejected a server finds the key's next home. -1 when none is usable.
   */
  ownerSkipping(hash: number, usable: (server: number) => boolean): number {
    const n = this.points.length;
    let i = this.firstPoint(hash >>> 0);
    for (let seen = 0; seen < n; seen++) {
      const s = this.owners[i]!;
      if (usable(s)) return s;
      if (++i === n) i = 0;
    }
    return -1;
  }
}
