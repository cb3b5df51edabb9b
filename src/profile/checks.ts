import type { PathIssue, PathSegment } from './issues.ts';
import { parseDurationUs } from './units.ts';

/*
 * Cross-field checks. They read the raw document (before the schema) and skip any value that is not the right shape,
 * so they can run even when the schema failed and their problems are reported together with the schema's.
 */

type Raw = Record<string, unknown>;

/** Names and defaults the checks need from the schema: a profile without `clients` has one client, etc. */
const DEFAULT_CLIENT = 'default';
const DEFAULT_KIND = 'get';
const DEFAULT_KEY_COUNT = 100_000;

function record(value: unknown): Raw | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Raw) : undefined;
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
/** A duration in µs, or undefined when absent or malformed (the schema reports malformed ones). */
function durationUs(value: unknown): number | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  if (typeof value === 'number' && value < 0) return undefined;
  return parseDurationUs(value);
}
/** Renders a µs duration in the largest unit that keeps it whole, the way a profile would write it. */
function formatDurationUs(us: number): string {
  for (const [unit, size] of [['h', 3600e6], ['m', 60e6], ['s', 1e6], ['ms', 1e3]] as const) {
    if (us >= size && us % size === 0) return `${us / size}${unit}`;
  }
  return `${us}us`;
}
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** checkProfile runs every cross-field check on the raw profile document. */
export function checkProfile(data: unknown): PathIssue[] {
  const profile = record(data);
  if (!profile) return [];
  const clients = profile.clients === undefined ? [{ name: DEFAULT_CLIENT }] : list(profile.clients);
  return [
    ...checkClients(clients),
    ...checkClientReferences(profile, clients),
    ...checkSloKinds(profile, clients),
    ...checkPhases(list(profile.phases), ['phases']),
    ...clients.flatMap((client, i) => checkPhases(list(record(client)?.phases), ['clients', i, 'phases'])),
    ...checkTotalDuration(profile),
    ...checkMultipliers(list(profile.multipliers)),
    ...checkKeys(record(profile.keys)),
  ];
}

function clientNames(clients: readonly unknown[]): string[] {
  return clients.flatMap((c) => str(record(c)?.name) ?? []);
}

function checkClients(clients: readonly unknown[]): PathIssue[] {
  const issues: PathIssue[] = [];
  const firstIndex = new Map<string, number>();
  clients.forEach((client, i) => {
    const c = record(client);
    const name = str(c?.name);
    if (name !== undefined) {
      const first = firstIndex.get(name);
      if (first === undefined) firstIndex.set(name, i);
      else {
        const message = `duplicate client name "${name}" (also clients[${first}])`;
        issues.push({ path: ['clients', i, 'name'], message, hint: 'give every client a unique name; reports and SLOs refer to clients by name' });
      }
    }
    const start = c?.start === undefined ? 0 : durationUs(c.start);
    const end = durationUs(c?.end);
    if (start !== undefined && end !== undefined && end <= start) {
      const message = `expected end after start (${shown(c?.start ?? 0)}), got ${shown(c?.end)}`;
      issues.push({ path: ['clients', i, 'end'], message, hint: 'end is when the client stops, measured from the start of the run like start' });
    }
  });
  return issues;
}

function checkClientReferences(profile: Raw, clients: readonly unknown[]): PathIssue[] {
  const names = [...new Set(clientNames(clients))];
  const known = new Set(names);
  const hint = `clients are: ${names.join(', ') || '(none)'}`;
  const unknown = (path: PathSegment[], value: unknown): PathIssue[] =>
    typeof value === 'string' && !known.has(value) ? [{ path, message: `expected the name of a client, got ${shown(value)}`, hint }] : [];
  const listed = (owner: unknown[], prefix: PathSegment[]): PathIssue[] =>
    owner.flatMap((item, i) => list(record(item)?.clients).flatMap((name, j) => unknown([...prefix, i, 'clients', j], name)));
  return [
    ...listed(list(profile.multipliers), ['multipliers']),
    ...listed(list(record(profile.keys)?.hot), ['keys', 'hot']),
    ...list(record(profile.slo)?.latency).flatMap((check, i) => unknown(['slo', 'latency', i, 'client'], record(check)?.client)),
  ];
}

function mixKinds(mix: unknown): string[] | undefined {
  if (mix === undefined) return undefined;
  return list(mix).flatMap((entry) => str(record(entry)?.kind) ?? []);
}

/** An SLO on a kind must name a kind that is sent: the named client's mix (or the profile's), else any mix. */
function checkSloKinds(profile: Raw, clients: readonly unknown[]): PathIssue[] {
  const profileKinds = mixKinds(profile.mix) ?? [DEFAULT_KIND];
  const byClient = new Map(clients.flatMap((c) => {
    const name = str(record(c)?.name);
    return name === undefined ? [] : [[name, mixKinds(record(c)?.mix) ?? profileKinds] as const];
  }));
  const everyKind = [...new Set([...profileKinds, ...[...byClient.values()].flat()])];
  return list(record(profile.slo)?.latency).flatMap((check, i) => {
    const c = record(check);
    const kind = str(c?.kind);
    if (kind === undefined) return [];
    const client = str(c?.client);
    const kinds = (client !== undefined && byClient.get(client)) || everyKind;
    if (kinds.includes(kind)) return [];
    const whose = client !== undefined && byClient.has(client) ? `client "${client}"` : 'the profile and its clients';
    const message = `expected a request kind sent by ${whose} (${kinds.join(' | ')}), got ${shown(kind)}`;
    return [{ path: ['slo', 'latency', i, 'kind'], message, hint: 'kinds come from the `mix` of the profile and of each client' }];
  });
}

/** phaseDurationUs is how long a phase runs; a spike without `duration` runs rise+hold+decay. */
function phaseDurationUs(phase: Raw): number | undefined {
  if (phase.type === 'spike' && phase.duration === undefined) return spikeShapeUs(phase);
  return durationUs(phase.duration);
}
function spikeShapeUs(phase: Raw): number | undefined {
  const parts = [phase.rise, phase.hold, phase.decay].map(durationUs);
  return parts.every((p) => p !== undefined) ? parts.reduce((a, b) => a! + b!, 0) : undefined;
}

function checkPhases(phases: readonly unknown[], prefix: PathSegment[]): PathIssue[] {
  return phases.flatMap((item, i) => {
    const phase = record(item);
    if (phase?.type !== 'spike' || phase.duration === undefined) return [];
    const shape = spikeShapeUs(phase);
    const total = durationUs(phase.duration);
    if (shape === undefined || total === undefined || total >= shape) return [];
    return [{
      path: [...prefix, i, 'duration'],
      message: `expected duration ≥ rise+hold+decay (${formatDurationUs(shape)}), got ${shown(phase.duration)}`,
      hint: `make the spike phase at least ${formatDurationUs(shape)} long, or drop duration to default to rise+hold+decay`,
    }];
  });
}

function checkTotalDuration(profile: Raw): PathIssue[] {
  const total = durationUs(profile.duration);
  if (total === undefined) return [];
  const parts = list(profile.phases).map((p) => { const r = record(p); return r ? phaseDurationUs(r) : undefined; });
  if (parts.length === 0 || parts.some((p) => p === undefined)) return [];
  const sum = parts.reduce((a, b) => a! + b!, 0)!;
  if (total >= sum) return [];
  return [{
    path: ['duration'],
    message: `expected duration ≥ the sum of the phase durations (${formatDurationUs(sum)}), got ${shown(profile.duration)}`,
    hint: `set duration to at least ${formatDurationUs(sum)}, or drop it to default to the sum of the phases`,
  }];
}

function checkMultipliers(multipliers: readonly unknown[]): PathIssue[] {
  return multipliers.flatMap((item, i) => {
    const m = record(item);
    const at = durationUs(m?.at);
    const until = durationUs(m?.until);
    if (at === undefined || until === undefined || until > at) return [];
    return [{
      path: ['multipliers', i, 'until'],
      message: `expected until after at (${shown(m?.at)}), got ${shown(m?.until)}`,
      hint: 'until is when the multiplier ends, measured from the start of the run like at; omit it to last to the end',
    }];
  });
}

function checkKeys(keys: Raw | undefined): PathIssue[] {
  if (!keys) return [];
  const issues: PathIssue[] = [];
  const peaks = list(keys.hot).map((h) => num(record(h)?.peak));
  const peakSum = peaks.reduce<number>((a, p) => a + (p ?? 0), 0);
  if (peakSum > 1 + 1e-9) {
    const message = `expected the hot keys' peaks to add up to at most 1, got ${Number(peakSum.toFixed(6))}`;
    issues.push({ path: ['keys', 'hot'], message, hint: 'each peak is a share of all key draws; lower some of them' });
  }
  const popularity = record(keys.popularity);
  const keyFraction = num(popularity?.keyFraction);
  const count = keys.count === undefined ? DEFAULT_KEY_COUNT : num(keys.count);
  if (popularity?.type === 'hotspot' && keyFraction !== undefined && count !== undefined && keyFraction * count < 1) {
    issues.push({
      path: ['keys', 'popularity', 'keyFraction'],
      message: `expected keyFraction × count ≥ 1 (at least one hot key), got ${keyFraction} × ${count} = ${Number((keyFraction * count).toPrecision(6))}`,
      hint: `raise keyFraction to at least ${Number((1 / count).toPrecision(6))}, or raise keys.count`,
    });
  }
  return issues;
}
