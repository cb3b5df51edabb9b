import type { EventHandler, Simulation } from '../engine/simulation.ts';
import type { TimelineEvent } from '../../profile/topology/index.ts';
import type { CacheNode } from '../components/cache/cache.ts';
import type { ClientGroupModel } from '../components/client-group/client-group.ts';
import type { DatabaseNode } from '../components/database/database.ts';
import type { ServiceNode } from '../components/service/service.ts';
import type { NetworkLink } from '../core/network.ts';
import { shardListSlots } from '../../profile/topology/shards.ts';

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
const EV_BLIP_START = 11;
const EV_BLIP_END = 12;
const EV_NETWORK_START = 13;
const EV_NETWORK_END = 14;

export interface TimelineTargets {
  cache(name: string): CacheNode;
  service(name: string): ServiceNode;
  group(name: string): ClientGroupModel;
  database(name: string): DatabaseNode;
  /** The network element of a `network` event (built once, at setup). */
  link(event: Extract<TimelineEvent, { type: 'network' }>): NetworkLink;
}

/**
 * Plays the topology's timeline: one heap event per step (a shard joining or leaving, a dip
 * starting or ending, an operator's change), addressed by the event's index. Periodic dips
 * re-arm themselves, so the heap never holds more than one pending step per event.
 */
export class TimelinePlayer implements EventHandler {
  private readonly handlerId: number;
  /** The network element of each `network` event, by event index. */
  readonly links = new Map<number, NetworkLink>();
  /** The shards still to leave of each `removeShards` that names them, by event index. */
  private readonly named = new Map<number, number[]>();

  constructor(
    private readonly sim: Simulation,
    private readonly events: readonly TimelineEvent[],
    private readonly targets: TimelineTargets,
  ) {
    this.handlerId = sim.register(this);
    events.forEach((event, i) => {
      switch (event.type) {
        case 'addShards':
        case 'removeShards': {
          const code = event.type === 'addShards' ? EV_ADD_SHARD : EV_REMOVE_SHARD;
          if (event.type === 'removeShards' && event.shards !== undefined) this.named.set(i, shardListSlots(event.shards));
          const count = this.named.get(i)?.length ?? event.count ?? 0;
          for (let k = 0; k < count; k++) sim.at(event.at + k * event.every, this.handlerId, code, i);
          break;
        }
        case 'restoreShards':
          sim.at(event.at, this.handlerId, EV_RESTORE, i);
          break;
        case 'flush':
          sim.at(event.at, this.handlerId, EV_FLUSH, i);
          break;
        case 'restart':
          sim.at(event.at, this.handlerId, EV_RESTART, i);
          break;
        case 'latency':
          sim.at(event.at, this.handlerId, EV_LATENCY_START, i);
          sim.at(Math.max(event.at, event.until), this.handlerId, EV_LATENCY_END, i);
          break;
        case 'dip':
          sim.at(event.start, this.handlerId, EV_DIP_START, i);
          break;
        case 'set':
          sim.at(event.at, this.handlerId, EV_SET, i);
          break;
        case 'blip':
          sim.at(event.at, this.handlerId, EV_BLIP_START, i);
          break;
        case 'network':
          this.links.set(i, targets.link(event));
          sim.at(event.at, this.handlerId, EV_NETWORK_START, i);
          sim.at(event.at + event.for, this.handlerId, EV_NETWORK_END, i);
          break;
      }
    });
  }

  handle(code: number, index: number): void {
    const event = this.events[index]!;
    switch (event.type) {
      case 'addShards':
        this.targets.cache(event.cache).resize(1);
        break;
      case 'removeShards': {
        // Named shards leave in their listed order: the k-th step of the event takes the k-th.
        const named = this.named.get(index);
        const cache = this.targets.cache(event.cache);
        if (named === undefined) cache.resize(-1);
        else cache.removeShard(named.shift()!);
        break;
      }
      case 'flush':
        this.targets.cache(event.cache).flush();
        break;
      case 'restart':
        this.targets.service(event.service).restart(event.downFor);
        break;
      case 'latency': {
        const add = code === EV_LATENCY_START ? event.add : 0;
        if (event.service !== undefined) this.targets.service(event.service).extraLatencyUs = add;
        if (event.cache !== undefined) this.targets.cache(event.cache).extraLatencyUs = add;
        if (event.database !== undefined) this.targets.database(event.database).extraLatencyUs = add;
        break;
      }
      case 'restoreShards': {
        // One dead shard now; the next after `every` (or all now when every is 0).
        const cache = this.targets.cache(event.cache);
        do {
          if (!cache.restoreOne()) return;
        } while (event.every === 0);
        this.sim.after(event.every, this.handlerId, EV_RESTORE, index);
        break;
      }
      case 'dip': {
        const factor = code === EV_DIP_START ? event.slowdown : 1;
        if (event.cache !== undefined) this.targets.cache(event.cache).slowdown = factor;
        else this.targets.service(event.service!).slowdown = factor;
        if (code === EV_DIP_START) {
          this.sim.after(event.for, this.handlerId, EV_DIP_END, index);
          this.sim.after(event.every, this.handlerId, EV_DIP_START, index);
        }
        break;
      }
      case 'blip': {
        const on = code === EV_BLIP_START;
        this.targets.cache(event.cache).blip(event.shards, event, on);
        if (on) {
          this.sim.after(event.for, this.handlerId, EV_BLIP_END, index);
          if (event.every !== undefined) this.sim.after(event.every, this.handlerId, EV_BLIP_START, index);
        }
        break;
      }
      case 'network': {
        const link = this.links.get(index)!;
        if (code === EV_NETWORK_START) link.begin();
        else link.end();
        break;
      }
      case 'set': {
        const group = this.targets.group(event.clientGroup);
        if (event.maxOpen !== undefined) group.setMaxOpen(event.maxOpen);
        if (event.fanoutLimit !== undefined) group.fanoutLimit = event.fanoutLimit;
        break;
      }
    }
  }
}
