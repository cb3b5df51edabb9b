/**
 * Ops and gets per shard since the last sample, so the report can show the incident of a hot key:
 * one shard carrying far more than the rest. Counting is an array increment per op; the summary is
 * computed once per interval, and reduced to the hottest shard against the rest (a fixed number of
 * series however many shards there are).
 */
export interface ShardLoadSample {
  /** Slot of the shard that served the most ops in the interval (−1: no op). */
  hottest: number;
  hottestRps: number;
  /** Mean ops per second of the other shards in the ring. */
  othersRps: number;
  /** Hit ratio of the hottest shard's gets, and of every other shard's together (0 without gets). */
  hottestHitRatio: number;
  othersHitRatio: number;
}

export class ShardLoad {
  private readonly ops: Float64Array;
  private readonly gets: Float64Array;
  private readonly hits: Float64Array;
  private lastSampleUs = 0;

  constructor(slots: number) {
    this.ops = new Float64Array(slots);
    this.gets = new Float64Array(slots);
    this.hits = new Float64Array(slots);
  }

  op(shard: number): void {
    this.ops[shard]!++;
  }

  get(shard: number, hit: boolean): void {
    this.gets[shard]!++;
    if (hit) this.hits[shard]!++;
  }

  /** The interval since the previous sample, summarised; the counters restart. `shards`: shards in the ring now. */
  sample(nowUs: number, shards: number): ShardLoadSample {
    const seconds = Math.max(nowUs - this.lastSampleUs, 1) / 1e6;
    this.lastSampleUs = nowUs;
    let hottest = -1;
    let total = 0;
    let gets = 0;
    let hits = 0;
    for (let s = 0; s < this.ops.length; s++) {
      total += this.ops[s]!;
      gets += this.gets[s]!;
      hits += this.hits[s]!;
      if (this.ops[s]! > 0 && (hottest < 0 || this.ops[s]! > this.ops[hottest]!)) hottest = s;
    }
    const hot = hottest < 0 ? { ops: 0, gets: 0, hits: 0 } : { ops: this.ops[hottest]!, gets: this.gets[hottest]!, hits: this.hits[hottest]! };
    const others = Math.max(1, shards - (hottest < 0 ? 0 : 1));
    const sample = {
      hottest,
      hottestRps: hot.ops / seconds,
      othersRps: (total - hot.ops) / others / seconds,
      hottestHitRatio: hot.gets > 0 ? hot.hits / hot.gets : 0,
      othersHitRatio: gets - hot.gets > 0 ? (hits - hot.hits) / (gets - hot.gets) : 0,
    };
    this.ops.fill(0);
    this.gets.fill(0);
    this.hits.fill(0);
    return sample;
  }
}
