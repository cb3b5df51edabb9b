import type { Profile } from '../../../profile/types.ts';
import { allKinds, buildPlan, resolveClients, type ResolvedClient } from '../../../schedule/plan.ts';
import { k6Duration } from '../duration.ts';
import { SECRET_REFERENCE } from '../../../profile/secrets.ts';
import { EnvString, literal } from './literal.ts';
import { baseUrlOf } from './target.ts';
import { BUNDLE_GLOBAL, scheduleBundle } from './runtime/schedule-bundle.ts';
import { SEND_SOURCE } from './runtime/send.ts';
import { TYPES_SOURCE } from './runtime/types.ts';
import { scenariosOf, uniqueName } from './scenarios.ts';
import { thresholdsOf, trendStatsOf } from './thresholds.ts';

export interface K6ExportOptions {
  /** The HTTP target the script aims at by default (the profile's own when absent); TARGET overrides it at run time. */
  target?: string | undefined;
  /** How the profile was named on the command line, for the script's header. */
  source?: string | undefined;
}

/**
 * A profile as one self-contained k6 TypeScript script (typed with @types/k6): each client group an
 * arrival-rate scenario following its rate curve (warm-up and multipliers included), each iteration
 * one request drawn as stampede draws it (mix, key popularity with hot keys over time, batch and
 * value sizes, the kind's request template), the SLO as thresholds. Pure: same profile, same text.
 * @throws TargetError when the target is not HTTP (k6 core has no memcached client).
 */
export function exportK6Script(profile: Profile, options: K6ExportOptions = {}): string {
  const baseUrl = baseUrlOf(profile, options.target);
  const kinds = allKinds(profile);
  const clients = resolveClients(profile, kinds);
  const plan = buildPlan(profile, kinds, clients);
  const used = new Set<string>();
  const execNames = clients.map((c) => uniqueName(`client_${c.spec.name.replace(/[^0-9A-Za-z_]/g, '_')}`, used));
  const k6Options = {
    scenarios: scenariosOf(profile, clients, execNames),
    thresholds: thresholdsOf(profile, plan.expectedRequests),
    summaryTrendStats: trendStatsOf(profile),
    // Latency is what is measured; bodies are read and dropped, as stampede's HTTP driver does.
    discardResponseBodies: true,
  };
  return [
    header(profile, clients, options.source),
    "import http from 'k6/http';\nimport exec from 'k6/execution';\nimport type { Options } from 'k6/options';",
    `/** Where requests go: \`k6 run -e TARGET=http://host:port\` overrides the exported target. */\nconst BASE_URL: string = __ENV.TARGET || ${literal(baseUrl)};`,
    `export const options: Options = ${literal(k6Options)};`,
    TYPES_SOURCE.trim(),
    data(profile, kinds, clients),
    scheduleModules(),
    SEND_SOURCE.trim(),
    ...[environmentCheck(environmentVariables(profile))].filter((text) => text !== ''),
    clients.map((c, i) => `/** Client group ${c.spec.name}: one request per iteration. */\nexport function ${execNames[i]}(): void {\n  send(${i});\n}`).join('\n\n'),
  ]
    .join('\n\n')
    .concat('\n');
}

function data(profile: Profile, kinds: string[], clients: ResolvedClient[]): string {
  const keys = {
    count: profile.keys.count,
    prefix: profile.keys.prefix,
    popularity: profile.keys.popularity,
    // µs, as the schedule's key drawer reads them; an absent halfLife or clients stays absent.
    hot: profile.keys.hot.map((h) => ({ key: h.key, start: h.start, rise: h.rise, peak: h.peak, hold: h.hold, halfLife: h.halfLife, clients: h.clients })),
    ...(profile.keys.oneHitWonders !== undefined ? { oneHitWonders: profile.keys.oneHitWonders } : {}),
  };
  const shapes = clients.map((c) => ({ name: c.spec.name, kinds: c.kinds.map((k) => kinds[k]!), weights: c.weights, batch: c.batch, valueSize: c.valueSize }));
  const templates = Object.fromEntries(
    Object.entries(profile.http.requests).map(([kind, t]) => [
      kind,
      // k6 sets Host, Content-Length and Connection itself, as stampede's driver does.
      {
        method: t.method,
        path: fromEnvironment(t.path, true),
        headers: Object.fromEntries(
          Object.entries(t.headers)
            .filter(([name]) => !/^(host|content-length|connection)$/i.test(name))
            .map(([name, value]) => [name, fromEnvironment(value, false)]),
        ),
        body: t.body === undefined ? null : fromEnvironment(t.body, false),
        // As written: a tag must not carry a secret the path reads from the environment.
        name: `${t.method} ${t.path}`,
      },
    ]),
  );
  return [
    `/** The profile's seed: every VU seeds its streams from it and its VU id. */\nconst SEED = ${profile.seed};`,
    `/** Warm-up: sent at the first rate and tagged window:warmup, outside the thresholds. */\nconst WARMUP_US = ${profile.warmup};`,
    `const TIMEOUT = ${literal(k6Duration(profile.http.timeout))};`,
    `const KEYS: Keyspace = ${literal(keys)};`,
    `const CLIENTS: ClientShape[] = ${literal(shapes)};`,
    `/** Request template per kind; kinds without one use default. */\nconst TEMPLATES: Record<string, RequestTemplate> = ${literal(templates)};`,
  ].join('\n\n');
}

/** The schedule's own modules, bundled, and what the script reads from them. */
function scheduleModules(): string {
  return [
    '/*',
    " * stampede's schedule modules (src/schedule: the generator, the size samplers and weighted pick, the",
    ' * key drawer with Zipf and hot keys), bundled by esbuild when this script was exported: the script',
    " * draws with the schedule's own code. Export again rather than edit it.",
    ' */',
    "// @ts-ignore: bundled JavaScript, not this script's; ScheduleModules types what the script reads from it",
    scheduleBundle(),
    `const SCHEDULE = ${BUNDLE_GLOBAL} as unknown as ScheduleModules;`,
    'const KEY_NAMES = SCHEDULE.createKeyspace(KEYS);',
  ].join('\n');
}

/** A template field as the script writes it: read from `__ENV` where it holds `${NAME}`, else the text. */
function fromEnvironment(text: string, encode: boolean): string | EnvString {
  return new RegExp(SECRET_REFERENCE.source).test(text) ? new EnvString(text, encode) : text;
}

/** The variables the templates read, in the order first used. */
function environmentVariables(profile: Profile): string[] {
  const texts = Object.values(profile.http.requests).flatMap((t) => [t.path, ...Object.values(t.headers), t.body ?? '']);
  return [...new Set(texts.flatMap((text) => [...text.matchAll(SECRET_REFERENCE)].map((m) => m[1]!)))];
}

/** k6 runs setup() once before any iteration: a variable left unset stops the test there, as stampede refuses the run. */
function environmentCheck(variables: readonly string[]): string {
  if (variables.length === 0) return '';
  return [
    `/** Read from the environment when the test starts (\`k6 run -e NAME=…\`, or the shell's), never written here. */`,
    `const FROM_ENVIRONMENT: string[] = ${literal(variables)};`,
    '',
    'export function setup(): void {',
    '  for (const name of FROM_ENVIRONMENT) {',
    "    if (__ENV[name] === undefined || __ENV[name] === '') throw new Error('environment variable ' + name + ' is not set: k6 run -e ' + name + '=… <script>');",
    '  }',
    '}',
  ].join('\n');
}

function header(profile: Profile, clients: ResolvedClient[], source: string | undefined): string {
  const poisson = clients.some((c) => c.arrivals === 'poisson');
  const variables = environmentVariables(profile);
  const lines = [
    // A file name may hold anything, even the end of this comment.
    `k6 script exported by stampede from ${(source ?? 'a profile').replaceAll('*/', '*\\/')} (profile ${profile.name}, seed ${profile.seed}).`,
    'Export again rather than edit: `stampede export k6 <profile> -o <script.ts>`. Run: `k6 run -e TARGET=http://host:port <script.ts>`.',
    '',
    'Each client group is an arrival-rate scenario (open model: k6 starts iterations on schedule whatever',
    'the responses, within maxVUs); each iteration sends one request drawn as stampede draws it.',
    'Not carried over: the connection pool (connections, pipelining: k6 gives each VU its own connections),',
    'the model topology and generator-health limits. k6 times a request from its own send, not from its',
    'intended time: a start k6 could not make on time shows only in dropped_iterations (a threshold bounds it).',
    ...(poisson ? ['Poisson arrivals are sent evenly spaced: k6 arrival-rate executors have no Poisson process.'] : []),
    ...(variables.length > 0 ? [`Reads ${variables.join(', ')} from the environment as stampede does: k6 run -e ${variables[0]}=… (setup() stops the test if one is unset).`] : []),
  ];
  return `/*\n${lines.map((l) => ` *${l === '' ? '' : ` ${l}`}`).join('\n')}\n */`;
}
