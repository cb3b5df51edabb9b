import { z } from 'zod';

/**
 * Which shards (slot numbers, 0-based) something applies to: "3", "0-19", or a list [0, 4, 7].
 * Slots past the initial shards are the ones timeline `addShards` fills, in order.
 */
export const shardList = z
  .union([z.string().regex(/^\d+(-\d+)?$/, 'expected a slot "3" or a range "0-19"'), z.number().int().min(0), z.array(z.number().int().min(0)).min(1)])
  .meta({ description: 'Shard slots: "3", "0-19" (inclusive) or a list [0, 4, 7].' });
export type ShardList = z.output<typeof shardList>;

/** True when `shard` is one of `list`. */
export function shardListHas(list: ShardList, shard: number): boolean {
  if (typeof list === 'number') return shard === list;
  if (Array.isArray(list)) return list.includes(shard);
  const [from, to] = list.split('-').map(Number) as [number, number | undefined];
  return shard >= from && shard <= (to ?? from);
}

/** The slots of `list`, in its order ("2-4": 2, 3, 4). */
export function shardListSlots(list: ShardList): number[] {
  if (typeof list === 'number') return [list];
  if (Array.isArray(list)) return [...list];
  const [from, to] = list.split('-').map(Number) as [number, number | undefined];
  return Array.from({ length: Math.max(0, (to ?? from) - from + 1) }, (_, i) => from + i);
}
