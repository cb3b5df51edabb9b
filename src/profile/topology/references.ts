import type { z } from 'zod';
import type { TopologyShape } from './index.ts';

type Issue = { path: (string | number)[]; message: string };

/**
 * Cross-references a schema cannot express field by field: every name used exists and has the right
 * kind, names are unique across services, caches and databases (calls say `to: name`), and service
 * calls form no cycle (a cycle would make one request spawn work forever).
 */
export function topologyReferenceIssues(t: TopologyShape): Issue[] {
  const issues: Issue[] = [];
  const kindOf = new Map<string, 'service' | 'cache' | 'database'>();
  const sections = [
    ['services', 'service', t.services],
    ['caches', 'cache', t.caches],
    ['databases', 'database', t.databases],
  ] as const;
  for (const [section, kind, components] of sections) {
    for (const name of Object.keys(components)) {
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
      if (call.onMiss) {
        if (target !== undefined && target !== 'cache') issues.push({ path: [...at, 'onMiss'], message: `onMiss is only for calls to a cache; "${call.to}" is a ${target}` });
        const missTarget = kindOf.get(call.onMiss.to);
        if (missTarget !== 'database' && missTarget !== 'service')
          issues.push({ path: [...at, 'onMiss', 'to'], message: `expected a database or service name, got "${call.onMiss.to}"` });
        if (!groups.has(call.onMiss.via)) issues.push({ path: [...at, 'onMiss', 'via'], message: `expected the name of a client group in clientGroups, got "${call.onMiss.via}"` });
      }
    });
  }
  t.timeline.forEach((event, i) => {
    const at = ['timeline', i];
    const expect = (name: string | undefined, kind: 'cache' | 'service', where: string[]) => {
      if (name !== undefined && kindOf.get(name) !== kind) issues.push({ path: [...at, ...where], message: `expected the name of a ${kind}, got "${name}"` });
    };
    if ('addShards' in event) expect(event.addShards.cache, 'cache', ['addShards', 'cache']);
    if ('restart' in event) expect(event.restart.service, 'service', ['restart', 'service']);
    if ('latency' in event) {
      const l = event.latency;
      expect(l.service, 'service', ['latency', 'service']);
      expect(l.cache, 'cache', ['latency', 'cache']);
      if (l.database !== undefined && kindOf.get(l.database) !== 'database')
        issues.push({ path: [...at, 'latency', 'database'], message: `expected the name of a database, got "${l.database}"` });
      if ([l.service, l.cache, l.database].filter((x) => x !== undefined).length !== 1)
        issues.push({ path: [...at, 'latency'], message: 'expected exactly one of `service`, `cache` or `database`' });
    }
    if ('flush' in event) expect(event.flush.cache, 'cache', ['flush', 'cache']);
    if ('restoreShards' in event) expect(event.restoreShards.cache, 'cache', ['restoreShards', 'cache']);
    if ('removeShards' in event) {
      expect(event.removeShards.cache, 'cache', ['removeShards', 'cache']);
      const cache = t.caches[event.removeShards.cache];
      if (cache && event.removeShards.count >= cache.shards)
        issues.push({ path: [...at, 'removeShards', 'count'], message: `a cache keeps at least one shard; "${event.removeShards.cache}" has ${cache.shards}` });
    }
    if ('dip' in event) {
      expect(event.dip.cache, 'cache', ['dip', 'cache']);
      expect(event.dip.service, 'service', ['dip', 'service']);
      if ((event.dip.cache === undefined) === (event.dip.service === undefined)) issues.push({ path: [...at, 'dip'], message: 'expected exactly one of `cache` or `service`' });
      if (event.for >= event.every) issues.push({ path: [...at, 'for'], message: 'a dip must be shorter than its period' });
    }
    if ('set' in event && !groups.has(event.set.clientGroup))
      issues.push({ path: [...at, 'set', 'clientGroup'], message: `expected the name of a client group in clientGroups, got "${event.set.clientGroup}"` });
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
