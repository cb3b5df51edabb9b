import type { TimelineEvent } from '../../profile/topology/index.ts';
import { PROTOCOLS, protocolOf, type TargetSpec } from '../../profile/protocols/registry.ts';
import { TimelineRefusedError } from '../errors.ts';
import { shardListSlots } from '../../profile/topology/shards.ts';

/*
 * The profile's timeline as steps on a real target's wall clock, planned before the run: which
 * server each membership step takes out of or puts into the client's ring (a protocol whose spec
 * has timeline.ring: memcached), which command each
 * exec runs. Planning it whole lets the CLI print it before any traffic and refuse what the target
 * cannot apply (exit 2), and makes the run's record say what was meant beside what happened.
 */

/** What a step does when its time comes. */
export type StepAction =
  | { kind: 'ring'; server: number; inRing: boolean }
  | { kind: 'exec'; argv: string[]; timeoutMs: number }
  /** Applied by the schedule (shift), or by the model itself: nothing to do at run time. */
  | { kind: 'planned' };

export interface TimelineStep {
  /** Position of the event in the timeline. */
  index: number;
  type: TimelineEvent['type'];
  /** ms from the run's start, warm-up included. */
  plannedMs: number;
  label: string;
  action: StepAction;
}

export interface StepsInput {
  events: readonly TimelineEvent[];
  /** The target the timeline plays on: its protocol says which events it applies (timeline.events) and which servers make its ring. */
  target: TargetSpec;
  /** Profile client names (a shift must name two). */
  clients: readonly string[];
}

export function eventName(event: TimelineEvent, index: number): string {
  const at = 'at' in event ? event.at : event.start;
  return `timeline[${index}] (${event.type} at ${at / 1e6}s)`;
}

/** Every step of the timeline in planned order. @throws TimelineRefusedError for an event the target cannot apply. */
export function planTimeline(input: StepsInput): TimelineStep[] {
  const timeline = protocolOf(input.target).timeline;
  const servers = timeline.ring?.(input.target);
  const ring = servers ? new RingPlan(servers, input.events) : undefined;
  const steps: TimelineStep[] = [];
  const order = input.events.map((event, index) => ({ event, index })).sort((a, b) => startOf(a.event) - startOf(b.event) || a.index - b.index);
  for (const { event, index } of order) {
    if (!timeline.events.has(event.type))
      throw new TimelineRefusedError(
        `${eventName(event, index)}: this ${input.target.kind}:// target cannot apply a ${event.type} event (${whatItActsOn(event.type)}); remove it for this target, or run on the model (--target model)`,
      );
    steps.push(...stepsOf(event, index, input, ring));
  }
  return steps.sort((a, b) => a.plannedMs - b.plannedMs || a.index - b.index);
}

/** Why a real target refuses an event: it moves a ring of a protocol that has one, or it acts inside the model. */
function whatItActsOn(type: TimelineEvent['type']): string {
  const ringed = PROTOCOLS.find((p) => 'ring' in p.timeline && p.timeline.events.has(type));
  return ringed ? `it changes a ${ringed.name}:// ring` : 'it acts inside the model';
}

function startOf(event: TimelineEvent): number {
  return 'at' in event ? event.at : event.start;
}

function stepsOf(event: TimelineEvent, index: number, input: StepsInput, ring: RingPlan | undefined): TimelineStep[] {
  const step = (offsetUs: number, label: string, action: StepAction = { kind: 'planned' }): TimelineStep => ({
    index,
    type: event.type,
    plannedMs: (startOf(event) + offsetUs) / 1000,
    label,
    action,
  });
  switch (event.type) {
    case 'exec': {
      const argv = typeof event.command === 'string' ? ['/bin/sh', '-c', event.command] : [...event.command];
      return [step(0, `exec ${JSON.stringify(argv)} (timeout ${event.timeout / 1e6}s)`, { kind: 'exec', argv, timeoutMs: event.timeout / 1000 })];
    }
    case 'shift': {
      for (const name of [event.from, event.to])
        if (!input.clients.includes(name)) throw new TimelineRefusedError(`${eventName(event, index)}: no client named "${name}"; clients are ${input.clients.join(', ')}`);
      const share = `${Math.round(event.fraction * 1000) / 10}%`;
      const moved = [step(0, `shift: ${share} of ${event.from}'s traffic moves to ${event.to}`)];
      if (event.until !== undefined) moved.push(step(event.until - event.at, `shift ends: ${event.from}'s traffic moves back`));
      return moved;
    }
    case 'addShards':
    case 'removeShards':
    case 'restoreShards':
      if (ring) return ring.stepsOf(event, index, step);
      return modelMembership(event, step);
    default:
      return [step(0, modelLabel(event))];
  }
}

type Step = (offsetUs: number, label: string, action?: StepAction) => TimelineStep;

function modelMembership(event: Extract<TimelineEvent, { type: 'addShards' | 'removeShards' | 'restoreShards' }>, step: Step): TimelineStep[] {
  if (event.type === 'restoreShards') return [step(0, `restoreShards: ${event.cache}'s dead shards restart${event.every > 0 ? `, one every ${event.every / 1e6}s` : ''}`)];
  if (event.type === 'removeShards' && event.shards !== undefined)
    return shardListSlots(event.shards).map((shard, k) => step(k * event.every, `removeShards: shard ${shard} leaves ${event.cache}`));
  const verb = event.type === 'addShards' ? 'joins' : 'leaves';
  const count = event.count ?? 0;
  return Array.from({ length: count }, (_, k) => step(k * event.every, `${event.type}: a shard ${verb} ${event.cache} (${k + 1} of ${count})`));
}

function modelLabel(event: TimelineEvent): string {
  switch (event.type) {
    case 'flush':
      return `flush: ${event.cache} loses its contents`;
    case 'restart':
      return `restart: ${event.service} down for ${event.downFor / 1e6}s`;
    case 'latency':
      return `latency: +${event.add / 1000}ms on ${event.service ?? event.cache ?? event.database} until ${event.until / 1e6}s`;
    case 'dip':
      return `dip: ${event.cache ?? event.service} ${event.slowdown}× slower for ${event.for / 1e6}s every ${event.every / 1e6}s`;
    case 'set':
      return `set: ${event.clientGroup}${event.maxOpen !== undefined ? ` maxOpen ${event.maxOpen}` : ''}${event.fanoutLimit !== undefined ? ` fanoutLimit ${event.fanoutLimit}` : ''}`;
    case 'blip': {
      const fault = event.down ? 'down' : event.loss !== undefined ? `${Math.round(event.loss * 100)}% loss` : `+${(event.latency ?? 0) / 1000}ms`;
      return `blip: ${event.cache} shards ${event.shards} ${fault} for ${event.for / 1e6}s${event.every !== undefined ? `, every ${event.every / 1e6}s` : ''}`;
    }
    case 'network':
      return `network: ${event.mode}${event.mode === 'delay' ? ` +${event.delay / 1000}ms` : ''} in front of ${event.to} for ${event.for / 1e6}s`;
    default:
      return event.type;
  }
}

/**
 * The memcached ring through the timeline, planned in event order: the target lists every server
 * the run may use; those the timeline's addShards bring in are the last ones and start outside
 * the ring. removeShards takes the highest-numbered server in the ring out (as the model does);
 * restoreShards puts the removed ones back, lowest first.
 */
class RingPlan {
  private readonly inRing: boolean[];
  private readonly removed: number[] = [];
  private nextStandby: number;

  constructor(
    private readonly servers: readonly string[],
    events: readonly TimelineEvent[],
  ) {
    const added = events.reduce((n, e) => n + (e.type === 'addShards' ? e.count : 0), 0);
    const initial = servers.length - added;
    if (initial < 1)
      throw new TimelineRefusedError(
        `the timeline adds ${added} server(s) and the target lists ${servers.length}: list every server the run may use, the ${added} to add last (they start outside the ring)`,
      );
    this.inRing = servers.map((_, i) => i < initial);
    this.nextStandby = initial;
  }

  stepsOf(event: Extract<TimelineEvent, { type: 'addShards' | 'removeShards' | 'restoreShards' }>, index: number, step: Step): TimelineStep[] {
    const out: TimelineStep[] = [];
    const move = (k: number, server: number, inRing: boolean, verb: string) => {
      this.inRing[server] = inRing;
      const left = this.inRing.filter(Boolean).length;
      out.push(step(k * event.every, `${event.type}: ${this.servers[server]} ${verb} the ring (${left} in it)`, { kind: 'ring', server, inRing }));
    };
    if (event.type === 'addShards') {
      for (let k = 0; k < event.count; k++) move(k, this.nextStandby++, true, 'joins');
    } else if (event.type === 'removeShards') {
      // Named shards are the target's servers by position; otherwise the highest-numbered in the ring.
      const named = event.shards !== undefined ? shardListSlots(event.shards) : null;
      const count = named?.length ?? event.count ?? 0;
      for (let k = 0; k < count; k++) {
        const server = named !== null ? named[k]! : this.inRing.lastIndexOf(true);
        if (this.inRing[server] !== true)
          throw new TimelineRefusedError(`${eventName(event, index)}: server ${server} is not in the ring then (the target lists ${this.servers.length}, from 0)`);
        if (this.inRing.filter(Boolean).length <= 1)
          throw new TimelineRefusedError(`${eventName(event, index)}: removing ${count} server(s) would leave the ring empty; the ring keeps at least one server`);
        this.removed.push(server);
        move(k, server, false, 'leaves');
      }
    } else {
      const back = this.removed.splice(0).sort((a, b) => a - b);
      if (back.length === 0) throw new TimelineRefusedError(`${eventName(event, index)}: no server is out of the ring by then; restoreShards puts back what removeShards took out`);
      back.forEach((server, k) => move(k, server, true, 'rejoins'));
    }
    return out;
  }
}

export interface TimelineCheck {
  /** The run may start the profile's commands (`--allow-exec`). */
  allowExec: boolean;
  /** Sending threads of a real target. */
  workers: number;
}

/**
 * The timeline a run will play on `target`, refused before any traffic (exit 2) when the target
 * cannot apply an event, when an exec event comes without `--allow-exec`, or when a real target's
 * events would run on several sending threads. The model plays every event except exec, which it
 * lists as not run.
 * @throws TimelineRefusedError
 */
export function checkTimeline(input: StepsInput, check: TimelineCheck): TimelineStep[] {
  const steps = planTimeline(input);
  // The model plays its timeline on virtual time, in process: nothing runs on this machine or waits for a thread.
  if (protocolOf(input.target).simulated) return steps;
  const exec = input.events.findIndex((e) => e.type === 'exec');
  if (exec >= 0 && !check.allowExec)
    throw new TimelineRefusedError(
      `${eventName(input.events[exec]!, exec)} runs a command on this machine; rerun with --allow-exec to let it (the command is printed before the run starts)`,
    );
  if (check.workers > 1 && steps.some((s) => s.action.kind !== 'planned'))
    throw new TimelineRefusedError(`the timeline changes the target or runs a command at set times, which one sending thread does; drop --workers (${check.workers})`);
  return steps;
}

/** The timeline as the CLI prints it before the run: one line a step. */
export function describeTimeline(steps: readonly TimelineStep[], target: TargetSpec): string[] {
  const simulated = protocolOf(target).simulated;
  return steps.map((s) => `  at ${s.plannedMs / 1000}s  ${s.label}${simulated && s.action.kind === 'exec' ? ' — not run on the model (virtual time)' : ''}`);
}
