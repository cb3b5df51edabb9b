import type { PathIssue, PathSegment } from './issues.ts';
import { phaseDurationUs, phasesDurationUs, spikeShapeUs } from './phases.ts';
import type { MixEntry, ParsedProfile, Phase } from './schema.ts';
import type { Salvaged } from './schema-walk.ts';
import { describeHidden, holdsSecret } from './secret-fields.ts';
import { MALFORMED_REFERENCE } from './secrets.ts';
import { isTemplateField, PLACEHOLDER, TEMPLATE_FIELDS } from './template-fields.ts';
import { PROTOCOL_SECTIONS, PROTOCOLS } from './protocols/registry.ts';

/*
 * Cross-field checks: one typed pass over the schema's output. When the schema failed, they read what
 * of the profile parsed (salvage, schema-walk.ts), so their problems are reported together with the
 * schema's. Every default is the schema's: a profile without `clients` has the schema's one client.
 * Each problem names the path of the field it blames; the loader places it at its line and column.
 */

/** The profile as far as it parsed: the whole schema output, or the parts of it that parsed. */
export type PartialProfile = Salvaged<ParsedProfile>;

/** Whether the document (or a --set) writes the field at a path: for checks on what is written beside what. */
export type Written = (path: readonly PathSegment[]) => boolean;

type PartialClient = NonNullable<NonNullable<PartialProfile['clients']>[number]>;
type PartialMix = Salvaged<MixEntry[]> | undefined;
type PartialPhases = Salvaged<Phase[]> | undefined;

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
/** A duration as a message quotes it: as a profile writes it, "10s" (0 needs no unit). */
function shownUs(us: number): string {
  return us === 0 ? '0' : JSON.stringify(formatDurationUs(us));
}
function shown(value: string | number): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
/** A text as a message quotes it, or only its kind in a secret's field (redaction.ts). */
function shownAt(path: readonly PathSegment[], text: string): string {
  return holdsSecret(path, text) ? describeHidden(text) : shown(text);
}

/** checkProfile runs every cross-field check on the profile as far as it parsed. */
export function checkProfile(profile: PartialProfile, written: Written): PathIssue[] {
  const clients = profile.clients ?? [];
  return [
    ...checkClients(clients),
    ...checkClientReferences(profile, clients),
    ...checkSloKinds(profile, clients),
    ...checkPhases(profile.phases, ['phases']),
    ...clients.flatMap((client, i) => checkPhases(client?.phases, ['clients', i, 'phases'])),
    ...checkTotalDuration(profile),
    ...checkPositiveDurations(profile, clients),
    ...checkMultipliers(profile),
    ...checkKeys(profile.keys, written),
    ...checkProduction(profile.production),
    ...checkTargetSections(profile, clients),
  ];
}

function checkClients(clients: readonly (PartialClient | undefined)[]): PathIssue[] {
  const issues: PathIssue[] = [];
  const firstIndex = new Map<string, number>();
  clients.forEach((client, i) => {
    const name = client?.name;
    if (name !== undefined) {
      const first = firstIndex.get(name);
      if (first === undefined) firstIndex.set(name, i);
      else {
        const message = `duplicate client name "${name}" (also clients[${first}])`;
        issues.push({ path: ['clients', i, 'name'], message, hint: 'give every client a unique name; reports and SLOs refer to clients by name' });
      }
    }
    const start = client?.start;
    const end = client?.end;
    if (start !== undefined && end !== undefined && end <= start) {
      const message = `expected end after start (${shownUs(start)}), got ${shownUs(end)}`;
      issues.push({ path: ['clients', i, 'end'], message, hint: 'end is when the client stops, measured from the start of the run like start' });
    }
  });
  return issues;
}

function checkClientReferences(profile: PartialProfile, clients: readonly (PartialClient | undefined)[]): PathIssue[] {
  const names = [...new Set(clients.flatMap((c) => c?.name ?? []))];
  const known = new Set(names);
  const hint = `clients are: ${names.join(', ') || '(none)'}`;
  const unknown = (path: PathSegment[], name: string | undefined): PathIssue[] =>
    name !== undefined && !known.has(name) ? [{ path, message: `expected the name of a client, got ${shown(name)}`, hint }] : [];
  const listed = (owners: readonly ({ clients?: (string | undefined)[] | undefined } | undefined)[] | undefined, prefix: PathSegment[]): PathIssue[] =>
    (owners ?? []).flatMap((owner, i) => (owner?.clients ?? []).flatMap((name, j) => unknown([...prefix, i, 'clients', j], name)));
  const topology = typeof profile.topology === 'object' ? profile.topology : undefined;
  return [
    ...listed(profile.multipliers, ['multipliers']),
    ...listed(profile.keys?.hot, ['keys', 'hot']),
    ...(profile.slo?.latency ?? []).flatMap((check, i) => unknown(['slo', 'latency', i, 'client'], check?.client)),
    // A shift moves traffic between profile clients (an inline topology's; a topology file's are checked when the run plans its timeline).
    ...(topology?.timeline ?? []).flatMap((event, i) =>
      event?.type === 'shift' ? (['from', 'to'] as const).flatMap((end) => unknown(['topology', 'timeline', i, end], event[end])) : [],
    ),
  ];
}

function mixKinds(mix: PartialMix): string[] {
  return (mix ?? []).flatMap((entry) => entry?.kind ?? []);
}

/** The kinds each client sends: its own mix, else the profile's. */
function kindsByClient(profile: PartialProfile, clients: readonly (PartialClient | undefined)[]): Map<string, string[]> {
  const profileKinds = mixKinds(profile.mix);
  return new Map(clients.flatMap((c) => (c?.name === undefined ? [] : [[c.name, c.mix === undefined ? profileKinds : mixKinds(c.mix)] as const])));
}

/** An SLO on a kind must name a kind that is sent: the named client's mix (or the profile's), else any mix. */
function checkSloKinds(profile: PartialProfile, clients: readonly (PartialClient | undefined)[]): PathIssue[] {
  const byClient = kindsByClient(profile, clients);
  const everyKind = [...new Set([...mixKinds(profile.mix), ...[...byClient.values()].flat()])];
  return (profile.slo?.latency ?? []).flatMap((check, i) => {
    const kind = check?.kind;
    if (kind === undefined) return [];
    const client = check?.client;
    const kinds = (client !== undefined && byClient.get(client)) || everyKind;
    if (kinds.includes(kind)) return [];
    const whose = client !== undefined && byClient.has(client) ? `client "${client}"` : 'the profile and its clients';
    const message = `expected a request kind sent by ${whose} (${kinds.join(' | ')}), got ${shown(kind)}`;
    return [{ path: ['slo', 'latency', i, 'kind'], message, hint: 'kinds come from the `mix` of the profile and of each client' }];
  });
}

function checkPhases(phases: PartialPhases, prefix: PathSegment[]): PathIssue[] {
  return (phases ?? []).flatMap((phase, i) => {
    if (phase?.type !== 'spike' || phase.duration === undefined) return [];
    const shape = spikeShapeUs(phase);
    if (shape === undefined || phase.duration >= shape) return [];
    return [
      {
        path: [...prefix, i, 'duration'],
        message: `expected duration ≥ rise+hold+decay (${formatDurationUs(shape)}), got ${shownUs(phase.duration)}`,
        hint: `make the spike phase at least ${formatDurationUs(shape)} long, or drop duration to default to rise+hold+decay`,
      },
    ];
  });
}

/**
 * Durations that divide or bound something must be > 0: a phase or a measured duration of 0 has no
 * rate to report, a timeout of 0 fails every request before it can be answered.
 */
function checkPositiveDurations(profile: PartialProfile, clients: readonly (PartialClient | undefined)[]): PathIssue[] {
  const zero = (path: PathSegment[], hint: string): PathIssue => ({ path, message: 'expected a duration > 0, got 0', hint });
  const phases = (owner: PartialPhases, prefix: PathSegment[]): PathIssue[] =>
    (owner ?? []).flatMap((phase, i) => {
      if (phase === undefined || phaseDurationUs(phase) !== 0) return [];
      // A spike's length is its rise, hold and decay when it gives no duration: the whole phase is to blame.
      const at = phase.type === 'spike' && phase.duration === undefined ? [...prefix, i] : [...prefix, i, 'duration'];
      return [zero(at, 'give the phase a length, e.g. 30s, or remove it')];
    });
  return [
    ...phases(profile.phases, ['phases']),
    ...clients.flatMap((client, i) => phases(client?.phases, ['clients', i, 'phases'])),
    ...(profile.duration === 0 ? [zero(['duration'], 'give the measured duration, e.g. 30s, or omit it to default to the sum of the phases')] : []),
    ...Object.keys(PROTOCOL_SECTIONS).flatMap((section) =>
      sectionOf(profile, section)?.['timeout'] === 0 ? [zero([section, 'timeout'], 'a timeout of 0 fails every request before it can be answered; e.g. 1s')] : [],
    ),
  ];
}

function checkTotalDuration(profile: PartialProfile): PathIssue[] {
  const total = profile.duration;
  const phases = profile.phases ?? [];
  const sum = phasesDurationUs(phases);
  if (total === undefined || phases.length === 0 || sum === undefined || total >= sum) return [];
  return [
    {
      path: ['duration'],
      message: `expected duration ≥ the sum of the phase durations (${formatDurationUs(sum)}), got ${shownUs(total)}`,
      hint: `set duration to at least ${formatDurationUs(sum)}, or drop it to default to the sum of the phases`,
    },
  ];
}

function checkMultipliers(profile: PartialProfile): PathIssue[] {
  return (profile.multipliers ?? []).flatMap((m, i) => {
    const at = m?.at;
    const until = m?.until;
    if (at === undefined || until === undefined || until > at) return [];
    return [
      {
        path: ['multipliers', i, 'until'],
        message: `expected until after at (${shownUs(at)}), got ${shownUs(until)}`,
        hint: 'until is when the multiplier ends, measured from the start of the run like at; omit it to last to the end',
      },
    ];
  });
}

function checkKeys(keys: PartialProfile['keys'], written: Written): PathIssue[] {
  if (!keys) return [];
  const issues: PathIssue[] = [];
  if (keys.file !== undefined) {
    // The file's keys are the keyspace: a count or prefix written beside it would silently not apply.
    for (const field of ['count', 'prefix'] as const) {
      if (written(['keys', field]))
        issues.push({ path: ['keys', field], message: `expected no ${field} beside keys.file (the file's keys are the keyspace)`, hint: `remove keys.${field}, or keys.file` });
    }
  }
  const peakSum = (keys.hot ?? []).reduce((sum, h) => sum + (h?.peak ?? 0), 0);
  if (peakSum > 1 + 1e-9) {
    const message = `expected the hot keys' peaks to add up to at most 1, got ${Number(peakSum.toFixed(6))}`;
    issues.push({ path: ['keys', 'hot'], message, hint: 'each peak is a share of all key draws; lower some of them' });
  }
  const popularity = keys.popularity;
  // With a key file the count is the file's, known once it is read.
  const count = keys.file !== undefined ? undefined : keys.count;
  if (popularity?.type === 'hotspot' && popularity.keyFraction !== undefined && count !== undefined && popularity.keyFraction * count < 1) {
    const { keyFraction } = popularity;
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
function checkProduction(production: PartialProfile['production']): PathIssue[] {
  if (!production) return [];
  const issues: PathIssue[] = [];
  for (const field of ['batchSize', 'valueSize'] as const) {
    const sizes = production[field];
    if (!sizes) continue;
    let previous: { name: string; value: number } | undefined;
    for (const name of SIZE_PERCENTILES) {
      const value = sizes[name];
      if (value === undefined) continue;
      if (previous && value < previous.value) {
        const message = `expected ${name} ≥ ${previous.name} (${previous.value}), got ${value}`;
        issues.push({ path: ['production', field, name], message, hint: 'percentiles grow from p50 to max' });
      }
      previous = { name, value };
    }
  }
  const shares = production.topKeyShares ?? [];
  shares.forEach((entry, i) => {
    const before = shares[i - 1];
    if (entry?.keys === undefined || entry.share === undefined || before?.keys === undefined || before.share === undefined) return;
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

type PartialTemplate = NonNullable<NonNullable<NonNullable<PartialProfile['http']>['requests']>[string]>;

/** CR, LF or NUL: in a request's method, path or headers they would end a line the template did not end. */
const LINE_BREAK = /[\r\n\0]/;
const SPLITTING_HINT = 'remove the line break: written as is, it would end the line and let the rest pass as another header or request (request splitting)';

/**
 * The path and header names and values of a request template go on request lines as written: no line
 * breaks. (The method is upper-case letters only, by the schema.)
 */
function checkRequestLines(kind: string, template: PartialTemplate): PathIssue[] {
  const issues: PathIssue[] = [];
  const path = template.path;
  if (path !== undefined && LINE_BREAK.test(path))
    issues.push({ path: ['http', 'requests', kind, 'path'], message: `expected no CR, LF or NUL in path, got ${shown(path)}`, hint: SPLITTING_HINT });
  for (const [name, value] of Object.entries(template.headers ?? {})) {
    const at = ['http', 'requests', kind, 'headers', name];
    if (LINE_BREAK.test(name)) issues.push({ path: at, message: `expected no CR, LF or NUL in a header name, got ${shown(name)}`, hint: SPLITTING_HINT, anchor: 'key' });
    if (value !== undefined && LINE_BREAK.test(value))
      issues.push({ path: at, message: `expected no CR, LF or NUL in header ${name}, got ${shownAt(at, value)}`, hint: SPLITTING_HINT });
  }
  return issues;
}

/** `${` must open a `${NAME}` reference (letters, digits, _): anything else would be sent as written. */
function checkSecretReferences(kind: string, template: PartialTemplate): PathIssue[] {
  const fields: [PathSegment[], string | undefined][] = [
    [['http', 'requests', kind, 'path'], template.path],
    [['http', 'requests', kind, 'body'], template.body],
    ...Object.entries(template.headers ?? {}).map(([name, value]): [PathSegment[], string | undefined] => [['http', 'requests', kind, 'headers', name], value]),
  ];
  return fields.flatMap(([path, text]) => {
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

/** Placeholders in a template's path and body must be ones the driver fills. */
function checkPlaceholders(kind: string, template: PartialTemplate): PathIssue[] {
  return (['path', 'body'] as const).flatMap((field) =>
    [...(template[field]?.matchAll(PLACEHOLDER) ?? [])].flatMap((match) =>
      isTemplateField(match[1]!)
        ? []
        : [{ path: ['http', 'requests', kind, field], message: `unknown placeholder {{${match[1]}}}`, hint: `placeholders: ${TEMPLATE_FIELDS.map((f) => `{{${f}}}`).join(' ')}` }],
    ),
  );
}

/**
 * `http.requests` and the fields a protocol's spec names as kindKeyed (`memcached.operations`) are keyed by request kind: a key that is no kind of any
 * mix is a typo that would silently send the default request. Template placeholders must be known.
 */
function checkTargetSections(profile: PartialProfile, clients: readonly (PartialClient | undefined)[]): PathIssue[] {
  const kinds = new Set([...mixKinds(profile.mix), ...clients.flatMap((c) => mixKinds(c?.mix))]);
  const hint = `kinds are: ${[...kinds].join(', ')}`;
  const issues: PathIssue[] = [];
  for (const [kind, template] of Object.entries(profile.http?.requests ?? {})) {
    if (kind !== 'default' && !kinds.has(kind))
      issues.push({ path: ['http', 'requests', kind], message: `expected a request kind of the mix or "default", got ${shown(kind)}`, hint });
    if (template === undefined) continue;
    issues.push(...checkRequestLines(kind, template), ...checkSecretReferences(kind, template), ...checkPlaceholders(kind, template));
  }
  for (const [section, field] of PROTOCOLS.flatMap((p) => p.kindKeyed ?? [])) {
    for (const kind of Object.keys(sectionOf(profile, section)?.[field] ?? {})) {
      if (!kinds.has(kind)) issues.push({ path: [section, field, kind], message: `expected a request kind of the mix, got ${shown(kind)}`, hint });
    }
  }
  return issues;
}

/** A protocol's section of the profile (`memcached:`) as far as it parsed, its fields by name: the checks above ask the protocols which to read. */
function sectionOf(profile: PartialProfile, section: string): Readonly<Record<string, unknown>> | undefined {
  return (profile as Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>)[section];
}
