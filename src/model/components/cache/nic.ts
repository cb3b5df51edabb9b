import { keyIds } from '../../../schedule/keys.ts';
import type { Sampler } from '../../../schedule/sample.ts';
import type { Keyspace } from '../../../schedule/types.ts';

export interface NicConfig {
  /** Bytes/s per shard slot; Infinity = replies leave at once. */
  bandwidth: Float64Array;
  /** Bytes of every reply besides the value. */
  replyOverhead: number;
  slots: number;
  keyspace: Keyspace;
  valueSize: Sampler;
  /** Value sizes of the named hot keys. */
  hotValueSize: Sampler;
}

/** Each shard's NIC: sends replies FIFO at its bandwidth, so big values queue behind each other. */
export class ShardNics {
  /** Virtual time at which each shard's NIC has sent everything queued. */
  readonly freeAtUs: Float64Array;
  readonly unlimited: boolean;
  private readonly bytesPerUs: Float64Array;
  /** A key's value size + 1, drawn once (0: not drawn yet). */
  private readonly valueBytes: Uint32Array;

  constructor(
    private readonly config: NicConfig,
    /** Where the bytes put on the wire are counted. */
    private readonly counts: { bytesSent: number },
  ) {
    const { keyspace } = config;
    this.freeAtUs = new Float64Array(config.slots);
    this.bytesPerUs = config.bandwidth.map((b) => b / 1e6);
    this.unlimited = config.bandwidth.every((b) => b === Number.POSITIVE_INFINITY);
    this.valueBytes = new Uint32Array(this.unlimited ? 0 : keyIds(keyspace));
  }

  /** Queues a reply (with the key's value on a hit) on the shard's NIC; returns when it is sent. */
  send(shard: number, key: number, hit: boolean, nowUs: number): number {
    const bytes = this.config.replyOverhead + (hit ? this.valueOf(key) : 0);
    this.counts.bytesSent += bytes;
    const sentAt = Math.max(nowUs, this.freeAtUs[shard]!) + Math.ceil(bytes / this.bytesPerUs[shard]!);
    this.freeAtUs[shard] = sentAt;
    return sentAt;
  }

  /** Bytes queued on the busiest shard's NIC, as the time it needs to send them (µs). */
  backlogUs(nowUs: number): number {
    let worst = 0;
    for (let s = 0; s < this.config.slots; s++) worst = Math.max(worst, this.freeAtUs[s]! - nowUs);
    return worst;
  }

  /** A key's value size, drawn once (named hot keys from hotKeyValueSize). */
  private valueOf(key: number): number {
    let bytes = this.valueBytes[key]!;
    if (bytes === 0) {
      bytes = 1 + (this.isHotKey(key) ? this.config.hotValueSize() : this.config.valueSize());
      this.valueBytes[key] = bytes;
    }
    return bytes - 1;
  }

  /** A named hot key (its own value sizes); one-hit wonders after them draw the keyspace's. */
  private isHotKey(key: number): boolean {
    const { count, hotKeys } = this.config.keyspace;
    return key >= count && key < count + hotKeys.length;
  }
}
