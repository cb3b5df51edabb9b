import type { z } from 'zod';
import type { TopologyShape } from './index.ts';
import { type ShardList, shardListSlots } from './shards.ts';
import { shardSlots } from './timeline.ts';

type Issue = { path: (string | number)[]; message: string };

/**
 * The sections whose components a service's call may name as its `to`, and whether one may be the
 * read a cache miss falls back to (`onMiss.to`). The model's component kinds say what they accept;
 * a test holds the two lists together.
 */
export const CALLED_SECTIONS = [
  { section: 'services', kind: 'service', answersMisses: true },
  { section: 'caches', kind: 'cache', answersMisses: false },
  { section: 'databases', kind: 'database', answersMisses: true },
] as const;

/**
 * Cross-references a schema cannot express field by field: every name used exists and has the right
 * kind, names are unique across services, caches and databases (calls say `to: name`), and service
 * calls form no cycle (a cycle would make one request spawn work forever).
 */
export function topologyReferenceIssues(t: TopologyShape): Issue[] {
  const issues: Issue[] = [];
  const kindOf = new Map<string, (typeof CALLED_SECTIONS)[number]['kind']>();
  for (const { section, kind } of CALLED_SECTIONS) {
    for (const name of Object.keys(t[section])) {
      const other = kindOf.get(name);
      if (other) issues.push({ path: [section, name], message: `name "${name}" is already a ${other}; names must be unique across services, caches and databases` });
      else kindOf.set(name, kind);
    }
  }
  const groups = new Set(Object.keys(t.clientGroups));
  const hosts = new Set(Object.keys(t.hosts));

  const entryNames = typeof t.entry === 'string' ? [['entry', t.entry] as const] : Object.entries(t.entry).map(([k, v]) => [`entry.${k}`, v] as const);
  if (typeof t.entry !== 'string' && t.entry.default === undefined) issues.push({ path: ['entry'], message: 'expected a `default` service in the entry map' });
  for (const [where, name] of entryNames) {
    if (kindOf.get(name) !== 'service') issues.push({ path: where.split('.'), message: `expected the name of a service, got "${name}"` });
  }
  if (t.caller !== undefined) {
    const callers = typeof t.caller === 'string' ? [['caller', t.caller] as const] : Object.entries(t.caller).map(([k, v]) => [`caller.${k}`, v] as const);
    for (const [where, name] of callers) {
      if (!groups.has(name)) issues.push({ path: where.split('.'), message: `expected the name of a client group in clientGroups, got "${name}"` });
    }
  }
  for (const [name, group] of Object.entries(t.clientGroups)) {
    if (group.closedLoop !== undefined && t.caller !== name)
      issues.push({ path: ['clientGroups', name, 'closedLoop'], message: `closed-loop users are the profile's callers: set \`caller: ${name}\` (one group for every client)` });
    if (group.host !== undefined && !hosts.has(group.host))
      issues.push({ path: ['clientGroups', name, 'host'], message: `expected the name of a host in hosts, got "${group.host}"` });
  }
  for (const [service, spec] of Object.entries(t.services)) {
    if (spec.gc && !spec.memory) issues.push({ path: ['services', service, 'gc'], message: 'gc needs `memory` (its limit is the heap the collector works against)' });
    spec.calls.forEach((call, i) => {
      const at = ['services', service, 'calls', i];
      const target = kindOf.get(call.to);
      if (!target) issues.push({ path: [...at, 'to'], message: `expected a service, cache or database name, got "${call.to}"` });
      if (!groups.has(call.via)) issues.push({ path: [...at, 'via'], message: `expected the name of a client group in clientGroups, got "${call.via}"` });
      const markDown = t.clientGroups[call.via]?.markDown;
      if (target === 'cache' && !call.write && !call.onMiss && markDown?.then === 'miss')
        issues.push({
          path: [...at, 'onMiss'],
          message: `clientGroups.${call.via}.markDown.then is "miss", so a node it ejects is skipped as a miss; without onMiss nothing reads the value and the skip would be an instant success. Add onMiss (the read a miss falls back to), or use then: rehash`,
        });
      if (call.onMiss) {
        if (target !== undefined && target !== 'cache') issues.push({ path: [...at, 'onMiss'], message: `onMiss is only for calls to a cache; "${call.to}" is a ${target}` });
        const missTarget = kindOf.get(call.onMiss.to);
        if (!CALLED_SECTIONS.some((called) => called.answersMisses && called.kind === missTarget))
          issues.push({ path: [...at, 'onMiss', 'to'], message: `expected a database or service name, got "${call.onMiss.to}"` });
        if (!groups.has(call.onMiss.via)) issues.push({ path: [...at, 'onMiss', 'via'], message: `expected the name of a client group in clientGroups, got "${call.onMiss.via}"` });
      }
    });
  }
  for (const [name, cache] of Object.entries(t.caches)) {
    cache.shardClasses.forEach((c, i) => {
      if (c.memory !== undefined && cache.memory === undefined && c.memory.limit === undefined)
        issues.push({ path: ['caches', name, 'shardClasses', i, 'memory', 'limit'], message: 'the cache has no `memory`: a shard class that models memory needs its `limit`' });
    });
  }
  for (const [name, monitor] of Object.entries(t.monitors)) {
    if (kindOf.get(monitor.cache) !== 'cache') issues.push({ path: ['monitors', name, 'cache'], message: `expected the name of a cache, got "${monitor.cache}"` });
  }
  t.timeline.forEach((event, i) => {
    const at = ['timeline', i];
    const expect = (name: string | undefined, kind: 'cache' | 'service', where: string[]) => {
      if (name !== undefined && kindOf.get(name) !== kind) issues.push({ path: [...at, ...where], message: `expected the name of a ${kind}, got "${name}"` });
    };
    switch (event.type) {
      case 'addShards':
      case 'restoreShards':
      case 'flush':
        expect(event.cache, 'cache', ['cache']);
        break;
      case 'removeShards': {
        expect(event.cache, 'cache', ['cache']);
        const cache = t.caches[event.cache];
        if ((event.count === undefined) === (event.shards === undefined)) issues.push({ path: at, message: 'expected exactly one of `count` or `shards`' });
        const leaving = event.shards !== undefined ? new Set(shardListSlots(event.shards as ShardList)).size : (event.count ?? 0);
        if (cache && leaving >= cache.shards)
          issues.push({ path: [...at, event.shards !== undefined ? 'shards' : 'count'], message: `a cache keeps at least one shard; "${event.cache}" has ${cache.shards}` });
        if (cache && event.shards !== undefined) {
          const slots = shardSlots(event.cache, cache.shards, t.timeline);
          const beyond = shardListSlots(event.shards as ShardList).find((s) => s >= slots);
          if (beyond !== undefined)
            issues.push({ path: [...at, 'shards'], message: `"${event.cache}" has shard slots 0–${slots - 1} (its shards and those addShards adds), got ${beyond}` });
        }
        break;
      }
      case 'restart':
        expect(event.service, 'service', ['service']);
        break;
      case 'latency':
        expect(event.service, 'service', ['service']);
        expect(event.cache, 'cache', ['cache']);
        if (event.database !== undefined && kindOf.get(event.database) !== 'database')
          issues.push({ path: [...at, 'database'], message: `expected the name of a database, got "${event.database}"` });
        if ([event.service, event.cache, event.database].filter((x) => x !== undefined).length !== 1)
          issues.push({ path: at, message: 'expected exactly one of `service`, `cache` or `database`' });
        break;
      case 'dip':
        expect(event.cache, 'cache', ['cache']);
        expect(event.service, 'service', ['service']);
        if ((event.cache === undefined) === (event.service === undefined)) issues.push({ path: at, message: 'expected exactly one of `cache` or `service`' });
        if (event.for >= event.every) issues.push({ path: [...at, 'for'], message: 'a dip must be shorter than its period' });
        break;
      case 'blip':
        expect(event.cache, 'cache', ['cache']);
        if (event.loss === undefined && event.down !== true && event.latency === undefined)
          issues.push({ path: at, message: 'expected at least one of `loss`, `down: true` or `latency`' });
        if (event.every !== undefined && event.for >= event.every) issues.push({ path: [...at, 'for'], message: 'a blip must be shorter than its period' });
        break;
      case 'network': {
        if (kindOf.get(event.to) === undefined) issues.push({ path: [...at, 'to'], message: `expected a service, cache or database name, got "${event.to}"` });
        // One element at a time in front of a component: each restores what it found when it ends.
        const overlaps = t.timeline.some((o, j) => j < i && o.type === 'network' && o.to === event.to && o.at < event.at + event.for && event.at < o.at + o.for);
        if (overlaps) issues.push({ path: [...at, 'at'], message: `overlaps an earlier network event on "${event.to}"` });
        if (event.shards !== undefined && kindOf.get(event.to) !== 'cache') issues.push({ path: [...at, 'shards'], message: '`shards` is only for a cache' });
        break;
      }
      case 'set':
        if (!groups.has(event.clientGroup))
          issues.push({ path: [...at, 'clientGroup'], message: `expected the name of a client group in clientGroups, got "${event.clientGroup}"` });
        break;
    }
  });
  const cycle = findCallCycle(t);
  if (cycle) issues.push({ path: ['services', cycle[0]!, 'calls'], message: `services call each other in a cycle: ${cycle.join(' → ')}` });
  return issues;
}

function findCallCycle(t: TopologyShape): string[] | undefined {
  const edges = (name: string): string[] => {
    const spec = t.services[name];
    if (!spec) return [];
    return spec.calls.flatMap((c) => [c.to, ...(c.onMiss ? [c.onMiss.to] : [])]).filter((n) => t.services[n] !== undefined);
  };
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === 'done') return undefined;
    if (state.get(name) === 'open') return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 'open');
    stack.push(name);
    for (const next of edges(name)) {
      const found = visit(next);
      if (found) return found;
    }
    stack.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const name of Object.keys(t.services)) {
    const found = visit(name);
    if (found) return found;
  }
  return undefined;
}

export function addReferenceIssues(t: TopologyShape, ctx: z.RefinementCtx): void {
  for (const issue of topologyReferenceIssues(t)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
}
