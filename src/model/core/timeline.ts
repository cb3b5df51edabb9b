import type { EventHandler, Simulation } from '../engine/simulation.ts';
import type { TimelineEvent } from '../../profile/topology/index.ts';
import type { CacheNode } from '../components/cache/cache.ts';
import type { ClientGroupModel } from '../components/client-group/client-group.ts';
import type { DatabaseNode } from '../components/database/database.ts';
import type { ServiceNode } from '../components/service/service.ts';

const EV_ADD_SHARD = 1;
const EV_REMOVE_SHARD = 2;
const EV_DIP_START = 3;
const EV_DIP_END = 4;
const EV_SET = 5;
const EV_RESTORE = 6;
const EV_FLUSH = 7;
const EV_RESTART = 8;
const EV_LATENCY_START = 9;
const EV_LATENCY_END = 10;

export interface TimelineTargets {
  cache(name: string): CacheNode;
  service(name: string): ServiceNode;
  group(name: string): ClientGroupModel;
  database(name: string): DatabaseNode;
}

/**
 * Plays the topology's timeline: one heap event per step (a shard joining or leaving, a dip
 * starting or ending, an operator's change), addressed by the event's index. Periodic dips
 * re-arm themselves, so the heap never holds more than one pending step per event.
 */
export class TimelinePlayer implements EventHandler {
  private readonly handlerId: number;

  constructor(
    private readonly sim: Simulation,
    private readonly events: readonly TimelineEvent[],
    private readonly targets: TimelineTargets,
  ) {
    this.handlerId = sim.register(this);
    events.forEach((event, i) => {
      if ('addShards' in event) {
        for (let k = 0; k < event.addShards.count; k++) sim.at(event.at + k * event.addShards.every, this.handlerId, EV_ADD_SHARD, i);
      } else if ('removeShards' in event) {
        for (let k = 0; k < event.removeShards.count; k++) sim.at(event.at + k * event.removeShards.every, this.handlerId, EV_REMOVE_SHARD, i);
      } else if ('restoreShards' in event) sim.at(event.at, this.handlerId, EV_RESTORE, i);
      else if ('flush' in event) sim.at(event.at, this.handlerId, EV_FLUSH, i);
      else if ('restart' in event) sim.at(event.at, this.handlerId, EV_RESTART, i);
      else if ('latency' in event) {
        sim.at(event.at, this.handlerId, EV_LATENCY_START, i);
        sim.at(Math.max(event.at, event.until), this.handlerId, EV_LATENCY_END, i);
      } else if ('dip' in event) sim.at(event.start, this.handlerId, EV_DIP_START, i);
      else sim.at(event.at, this.handlerId, EV_SET, i);
    });
  }

  handle(code: number, index: number): void {
    const event = this.events[index]!;
    if ('addShards' in event) this.targets.cache(event.addShards.cache).resize(1);
    else if ('removeShards' in event) this.targets.cache(event.removeShards.cache).resize(-1);
    else if ('flush' in event) this.targets.cache(event.flush.cache).flush();
    else if ('restart' in event) this.targets.service(event.restart.service).restart(event.restart.downFor);
    else if ('latency' in event) {
      const add = code === EV_LATENCY_START ? event.latency.add : 0;
      const l = event.latency;
      if (l.service !== undefined) this.targets.service(l.service).extraLatencyUs = add;
      if (l.cache !== undefined) this.targets.cache(l.cache).extraLatencyUs = add;
      if (l.database !== undefined) this.targets.database(l.database).extraLatencyUs = add;
    } else if ('restoreShards' in event) {
      // One dead shard now; the next after `every` (or all now when every is 0).
      const cache = this.targets.cache(event.restoreShards.cache);
      do {
        if (!cache.restoreOne()) return;
      } while (event.restoreShards.every === 0);
      this.sim.after(event.restoreShards.every, this.handlerId, EV_RESTORE, index);
    } else if ('dip' in event) {
      const factor = code === EV_DIP_START ? event.dip.slowdown : 1;
      if (event.dip.cache !== undefined) this.targets.cache(event.dip.cache).slowdown = factor;
      else this.targets.service(event.dip.service!).slowdown = factor;
      if (code === EV_DIP_START) {
        this.sim.after(event.for, this.handlerId, EV_DIP_END, index);
        this.sim.after(event.every, this.handlerId, EV_DIP_START, index);
      }
    } else {
      const group = this.targets.group(event.set.clientGroup);
      if (event.set.maxOpen !== undefined) group.setMaxOpen(event.set.maxOpen);
      if (event.set.fanoutLimit !== undefined) group.fanoutLimit = event.set.fanoutLimit;
    }
  }
}

/** Shard slots a cache needs: its initial shards plus every shard the timeline adds. */
export function shardSlots(cache: string, shards: number, events: readonly TimelineEvent[]): number {
  let slots = shards;
  for (const e of events) if ('addShards' in e && e.addShards.cache === cache) slots += e.addShards.count;
  return slots;
}
