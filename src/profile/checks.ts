import { checkEnvironmentReferences } from './environment-references.ts';
import { describeHidden, holdsSecret } from './secret-fields.ts';
import { MALFORMED_REFERENCE } from './secrets.ts';
import { isTemplateField, PLACEHOLDER, TEMPLATE_FIELDS } from './template-fields.ts';
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
  for (const [unit, size] of [
    ['h', 3600e6],
    ['m', 60e6],
    ['s', 1e6],
    ['ms', 1e3],
  ] as const) {
    if (us >= size && us % size === 0) return `${us / size}${unit}`;
  }
  return `${us}us`;
}
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
/** A value as a message quotes it, or only its kind in a secret's field (redaction.ts). */
function shownAt(path: readonly PathSegment[], value: unknown): string {
  return holdsSecret(path, value) ? describeHidden(value) : shown(value);
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
    ...checkPositiveDurations(profile, clients),
    ...checkMultipliers(list(profile.multipliers)),
    ...checkKeys(record(profile.keys)),
    ...checkProduction(record(profile.production)),
    ...checkTargetSections(profile, clients),
    ...checkEnvironmentReferences(profile),
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
    // A shift moves traffic between profile clients (an inline topology's; a topology file's are checked when the run plans its timeline).
    ...list(record(profile.topology)?.timeline).flatMap((event, i) =>
      record(event)?.type === 'shift' ? (['from', 'to'] as const).flatMap((end) => unknown(['topology', 'timeline', i, end], record(event)?.[end])) : [],
    ),
  ];
}

function mixKinds(mix: unknown): string[] | undefined {
  if (mix === undefined) return undefined;
  return list(mix).flatMap((entry) => str(record(entry)?.kind) ?? []);
}

/** An SLO on a kind must name a kind that is sent: the named client's mix (or the profile's), else any mix. */
function checkSloKinds(profile: Raw, clients: readonly unknown[]): PathIssue[] {
  const profileKinds = mixKinds(profile.mix) ?? [DEFAULT_KIND];
  const byClient = new Map(
    clients.flatMap((c) => {
      const name = str(record(c)?.name);
      return name === undefined ? [] : [[name, mixKinds(record(c)?.mix) ?? profileKinds] as const];
    }),
  );
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
    return [
      {
        path: [...prefix, i, 'duration'],
        message: `expected duration ≥ rise+hold+decay (${formatDurationUs(shape)}), got ${shown(phase.duration)}`,
        hint: `make the spike phase at least ${formatDurationUs(shape)} long, or drop duration to default to rise+hold+decay`,
      },
    ];
  });
}

/**
 * Durations that divide or bound something must be > 0: a phase or a measured duration of 0 has no
 * rate to report, a timeout of 0 fails every request before it can be answered.
 */
function checkPositiveDurations(profile: Raw, clients: readonly unknown[]): PathIssue[] {
  const zero = (path: PathSegment[], hint: string): PathIssue => ({ path, message: 'expected a duration > 0, got 0', hint });
  const phases = (owner: unknown[], prefix: PathSegment[]): PathIssue[] =>
    owner.flatMap((item, i) => {
      const phase = record(item);
      if (!phase || phaseDurationUs(phase) !== 0) return [];
      const at = phase.type === 'spike' && phase.duration === undefined ? [...prefix, i] : [...prefix, i, 'duration'];
      return [zero(at, 'give the phase a length, e.g. 30s, or remove it')];
    });
  return [
    ...phases(list(profile.phases), ['phases']),
    ...clients.flatMap((client, i) => phases(list(record(client)?.phases), ['clients', i, 'phases'])),
    ...(durationUs(profile.duration) === 0 ? [zero(['duration'], 'give the measured duration, e.g. 30s, or omit it to default to the sum of the phases')] : []),
    ...(['http', 'memcached'] as const).flatMap((section) =>
      durationUs(record(profile[section])?.timeout) === 0 ? [zero([section, 'timeout'], 'a timeout of 0 fails every request before it can be answered; e.g. 1s')] : [],
    ),
  ];
}

function checkTotalDuration(profile: Raw): PathIssue[] {
  const total = durationUs(profile.duration);
  if (total === undefined) return [];
  const parts = list(profile.phases).map((p) => {
    const r = record(p);
    return r ? phaseDurationUs(r) : undefined;
  });
  if (parts.length === 0 || parts.some((p) => p === undefined)) return [];
  const sum = parts.reduce((a, b) => a! + b!, 0)!;
  if (total >= sum) return [];
  return [
    {
      path: ['duration'],
      message: `expected duration ≥ the sum of the phase durations (${formatDurationUs(sum)}), got ${shown(profile.duration)}`,
      hint: `set duration to at least ${formatDurationUs(sum)}, or drop it to default to the sum of the phases`,
    },
  ];
}

function checkMultipliers(multipliers: readonly unknown[]): PathIssue[] {
  return multipliers.flatMap((item, i) => {
    const m = record(item);
    const at = durationUs(m?.at);
    const until = durationUs(m?.until);
    if (at === undefined || until === undefined || until > at) return [];
    return [
      {
        path: ['multipliers', i, 'until'],
        message: `expected until after at (${shown(m?.at)}), got ${shown(m?.until)}`,
        hint: 'until is when the multiplier ends, measured from the start of the run like at; omit it to last to the end',
      },
    ];
  });
}

function checkKeys(keys: Raw | undefined): PathIssue[] {
  if (!keys) return [];
  const issues: PathIssue[] = [];
  if (keys.file !== undefined) {
    // The file's keys are the keyspace: a count or prefix beside it would silently not apply.
    for (const field of ['count', 'prefix'] as const) {
      if (keys[field] !== undefined)
        issues.push({ path: ['keys', field], message: `expected no ${field} beside keys.file (the file's keys are the keyspace)`, hint: `remove keys.${field}, or keys.file` });
    }
  }
  const peaks = list(keys.hot).map((h) => num(record(h)?.peak));
  const peakSum = peaks.reduce<number>((a, p) => a + (p ?? 0), 0);
  if (peakSum > 1 + 1e-9) {
    const message = `expected the hot keys' peaks to add up to at most 1, got ${Number(peakSum.toFixed(6))}`;
    issues.push({ path: ['keys', 'hot'], message, hint: 'each peak is a share of all key draws; lower some of them' });
  }
  const popularity = record(keys.popularity);
  const keyFraction = num(popularity?.keyFraction);
  // With a key file the count is the file's, known once it is read.
  const count = keys.file !== undefined ? undefined : keys.count === undefined ? DEFAULT_KEY_COUNT : num(keys.count);
  if (popularity?.type === 'hotspot' && keyFraction !== undefined && count !== undefined && keyFraction * count < 1) {
    issues.push({
      path: ['keys', 'popularity', 'keyFraction'],
      message: `expected keyFraction × count ≥ 1 (at least one hot key), got ${keyFraction} × ${count} = ${Number((keyFraction * count).toPrecision(6))}`,
      hint: `raise keyFraction to at least ${Number((1 / count).toPrecision(6))}, or raise keys.count`,
    });
  }
  return issues;
}

const SIZE_PERCENTILES = ['p50', 'p90', 'p99', 'p999', 'p9999', 'max'] as const;

/** Observed percentiles must not decrease, and the top-N key shares must grow with N: anything else is a typo. */
function checkProduction(production: Raw | undefined): PathIssue[] {
  if (!production) return [];
  const issues: PathIssue[] = [];
  for (const field of ['batchSize', 'valueSize'] as const) {
    const sizes = record(production[field]);
    if (!sizes) continue;
    let previous: { name: string; value: number } | undefined;
    for (const name of SIZE_PERCENTILES) {
      const value = num(sizes[name]);
      if (value === undefined) continue;
      if (previous && value < previous.value) {
        const message = `expected ${name} ≥ ${previous.name} (${previous.value}), got ${value}`;
        issues.push({ path: ['production', field, name], message, hint: 'percentiles grow from p50 to max' });
      }
      previous = { name, value };
    }
  }
  const shares = list(production.topKeyShares).map((entry) => ({ keys: num(record(entry)?.keys), share: num(record(entry)?.share) }));
  shares.forEach((entry, i) => {
    const before = shares[i - 1];
    if (!before || entry.keys === undefined || entry.share === undefined || before.keys === undefined || before.share === undefined) return;
    if (entry.keys <= before.keys) {
      issues.push({
        path: ['production', 'topKeyShares', i, 'keys'],
        message: `expected more keys than the entry before (${before.keys}), got ${entry.keys}`,
        hint: 'list the top-N shares with N growing, e.g. top 1, top 100, top 10000',
      });
    } else if (entry.share < before.share) {
      issues.push({
        path: ['production', 'topKeyShares', i, 'share'],
        message: `expected a share ≥ that of the top ${before.keys} keys (${before.share}), got ${entry.share}`,
        hint: 'more keys cannot carry a smaller share of the lookups',
      });
    }
  });
  return issues;
}

/** CR, LF or NUL: in a request's method, path or headers they would end a line the template did not end. */
const LINE_BREAK = /[\r\n\0]/;
const SPLITTING_HINT = 'remove the line break: written as is, it would end the line and let the rest pass as another header or request (request splitting)';

/**
 * The path and header names and values of a request template go on request lines as written: no line
 * breaks. (The method is upper-case letters only, by the schema.)
 */
function checkRequestLines(kind: string, template: Raw | undefined): PathIssue[] {
  const issues: PathIssue[] = [];
  const path = str(template?.path);
  if (path !== undefined && LINE_BREAK.test(path))
    issues.push({ path: ['http', 'requests', kind, 'path'], message: `expected no CR, LF or NUL in path, got ${shown(path)}`, hint: SPLITTING_HINT });
  for (const [name, value] of Object.entries(record(template?.headers) ?? {})) {
    const at = ['http', 'requests', kind, 'headers', name];
    if (LINE_BREAK.test(name)) issues.push({ path: at, message: `expected no CR, LF or NUL in a header name, got ${shown(name)}`, hint: SPLITTING_HINT, anchor: 'key' });
    const text = str(value);
    if (text !== undefined && LINE_BREAK.test(text))
      issues.push({ path: at, message: `expected no CR, LF or NUL in header ${name}, got ${shownAt(at, text)}`, hint: SPLITTING_HINT });
  }
  return issues;
}

/** `${` must open a `${NAME}` reference (letters, digits, _): anything else would be sent as written. */
function checkSecretReferences(kind: string, template: Raw | undefined): PathIssue[] {
  const fields: [PathSegment[], unknown][] = [
    [['http', 'requests', kind, 'path'], template?.path],
    [['http', 'requests', kind, 'body'], template?.body],
    ...Object.entries(record(template?.headers) ?? {}).map(([name, value]): [PathSegment[], unknown] => [['http', 'requests', kind, 'headers', name], value]),
  ];
  return fields.flatMap(([path, value]) => {
    const text = str(value);
    if (text === undefined || !MALFORMED_REFERENCE.test(text)) return [];
    const found = /\$\{[^}]*\}?/.exec(text.slice(text.search(MALFORMED_REFERENCE)))?.[0] ?? '${';
    return [
      {
        path,
        message: `expected \${NAME} (an environment variable: letters, digits, _), got ${shownAt(path, found)}`,
        hint: `e.g. authorization: "Bearer \${AUTH_TOKEN}"; the value is read from the environment when the run starts`,
      },
    ];
  });
}

/**
 * `http.requests` and `memcached.operations` are keyed by request kind: a key that is no kind of any
 * mix is a typo that would silently send the default request. Template placeholders must be known.
 */
function checkTargetSections(profile: Raw, clients: readonly unknown[]): PathIssue[] {
  const kinds = new Set([...(mixKinds(profile.mix) ?? [DEFAULT_KIND]), ...clients.flatMap((c) => mixKinds(record(c)?.mix) ?? [])]);
  const hint = `kinds are: ${[...kinds].join(', ')}`;
  const issues: PathIssue[] = [];
  const requests = record(record(profile.http)?.requests) ?? {};
  for (const [kind, template] of Object.entries(requests)) {
    if (kind !== 'default' && !kinds.has(kind))
      issues.push({ path: ['http', 'requests', kind], message: `expected a request kind of the mix or "default", got ${shown(kind)}`, hint });
    const t = record(template);
    issues.push(...checkRequestLines(kind, t));
    issues.push(...checkSecretReferences(kind, t));
    for (const field of ['path', 'body'] as const) {
      const text = str(t?.[field]);
      for (const match of text?.matchAll(PLACEHOLDER) ?? []) {
        if (!isTemplateField(match[1]!)) {
          issues.push({
            path: ['http', 'requests', kind, field],
            message: `unknown placeholder {{${match[1]}}}`,
            hint: `placeholders: ${TEMPLATE_FIELDS.map((f) => `{{${f}}}`).join(' ')}`,
          });
        }
      }
    }
  }
  const operations = record(record(profile.memcached)?.operations) ?? {};
  for (const kind of Object.keys(operations)) {
    if (!kinds.has(kind)) issues.push({ path: ['memcached', 'operations', kind], message: `expected a request kind of the mix, got ${shown(kind)}`, hint });
  }
  return issues;
}
