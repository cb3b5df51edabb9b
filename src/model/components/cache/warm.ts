import type { ShardedLru } from './lru.ts';

/**
 * Fills every shard with its most popular keys (ids are popularity ranks), most popular most
 * recently used, so the first evictions take the least popular. Named hot keys start cold.
 */
export function warmShards(lru: ShardedLru, shards: number, popularKeys: number, shardOf: (key: number) => number): void {
  const capacity = lru.capacity;
  const filled = new Float64Array(shards);
  const chosen: number[] = [];
  let full = 0;
  for (let key = 0; key < popularKeys && full < shards; key++) {
    const shard = shardOf(key);
    if (filled[shard]! >= capacity) continue;
    chosen.push(key);
    if (++filled[shard]! >= capacity) full++;
  }
  for (let i = chosen.length - 1; i >= 0; i--) lru.insert(chosen[i]!, shardOf(chosen[i]!));
}
