import type { Rng } from '../../../schedule/rng.ts';

/** One blip's effect while it lasts. */
export interface BlipEffect {
  loss?: number | undefined;
  down?: boolean | undefined;
  latency?: number | undefined;
}

/**
 * Per-shard faults: a standing loss probability per shard (its shard class), and the blips of the
 * timeline switched on and off over it — correlated loss, an outage, added latency. Overlapping
 * blips on one shard do not stack: the latest to start or end decides.
 */
export class ShardFaults {
  /** Chance a request to the shard is lost now. */
  readonly loss: Float64Array;
  /** 1 while the shard refuses requests. */
  readonly down: Uint8Array;
  /** µs added to every op on the shard now. */
  readonly extraUs: Float64Array;
  constructor(private readonly standingLoss: Float64Array) {
    this.loss = Float64Array.from(standingLoss);
    this.down = new Uint8Array(standingLoss.length);
    this.extraUs = new Float64Array(standingLoss.length);
  }

  get slots(): number {
    return this.loss.length;
  }

  /** A blip starts (`on`) or ends on `shard`. */
  set(shard: number, blip: BlipEffect, on: boolean): void {
    this.loss[shard] = on && blip.loss !== undefined ? blip.loss : this.standingLoss[shard]!;
    this.down[shard] = on && blip.down === true ? 1 : 0;
    this.extraUs[shard] = on ? (blip.latency ?? 0) : 0;
  }

  /** Draws whether a request to `shard` is lost now (no draw when it cannot be). */
  drop(shard: number, rng: Rng): boolean {
    const p = this.loss[shard]!;
    return p > 0 && rng.next() < p;
  }
}
