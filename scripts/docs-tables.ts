import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { flagTable } from '../src/analysis/realism/registry.ts';
import { ExitCode } from '../src/cli/exit-codes.ts';
import { RunMetrics } from '../src/metrics/exporter.ts';
import { profileJsonSchema } from '../src/profile/json-schema.ts';

/*
 * The docs' tables that mirror code — exit codes, realism flags, profile and topology fields,
 * Prometheus series — generated from the code into the pages, between
 * `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`. `npm run docs:tables` rewrites them;
 * test/docs/tables.test.ts regenerates them in memory and fails when a page has drifted.
 *
 * A table may keep columns written by hand (a flag's "raised when", a series' labels): those cells
 * are read back from the page, by the row's first cell, so a new row in the code comes out with its
 * hand cell empty — which the test reports — and a row gone from the code takes its cell with it.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One generated table: where it lives and how it is made. */
export interface GeneratedTable {
  /** The marker's name: `<!-- generated:flags -->`. */
  name: string;
  /** The page, from the repository root. */
  page: string;
  /** The header's cells. */
  columns: string[];
  /** How many of the last columns are written by hand (kept from the page, by the row's first cell). */
  kept?: number;
  /** The generated cells of every row, in order: the first is the row's key. */
  rows(): string[][] | Promise<string[][]>;
}

// ---------------------------------------------------------------------------------------------
// Exit codes: src/cli/exit-codes.ts, each code's doc comment its meaning.

function exitCodeRows(): string[][] {
  const source = readFileSync(join(ROOT, 'src/cli/exit-codes.ts'), 'utf8');
  const body = source.slice(source.indexOf('export const ExitCode'), source.indexOf('} as const'));
  const documented = [...body.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(\w+): (\d+),/g)].map((m) => ({ name: m[2]!, meaning: docText(m[1]!) }));
  const names = Object.keys(ExitCode) as (keyof typeof ExitCode)[];
  if (documented.map((d) => d.name).join() !== names.join()) throw new Error('src/cli/exit-codes.ts: every ExitCode needs a doc comment');
  return documented.map((d) => [`\`${ExitCode[d.name as keyof typeof ExitCode]}\``, `\`${d.name}\``, d.meaning]);
}

/** A doc comment's text on one line. */
function docText(comment: string): string {
  return comment
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter(Boolean)
    .join(' ');
}

// ---------------------------------------------------------------------------------------------
// Realism flags.

type Severity = 'invalid' | 'warn' | 'info';
const SEVERITIES: readonly Severity[] = ['invalid', 'warn', 'info'];

/** A flag as the code raises it: its id, every severity and every title it is raised with. */
export interface FlagDefinition {
  id: string;
  severities: Severity[];
  titles: string[];
}

/**
 * The flags the code defines today: every `flag(id, severity, title, …)` call in the rule files
 * (src/analysis/realism/ for profiles and runs, src/interop/k6/lint/ for k6 scripts), in the order
 * the files raise them. A severity given as an expression is every severity literal of the
 * expression or, for a variable, of the rule around the call. Which folder raises an id, and with
 * what titles, is known only from its calls; what an id means is the registry's
 * (src/analysis/realism/registry.ts).
 */
export function flagDefinitions(folder: 'src/analysis/realism' | 'src/interop/k6/lint'): FlagDefinition[] {
  const files = readdirSync(join(ROOT, folder))
    .filter((f) => f.endsWith('.ts'))
    .sort((a, b) => FILE_ORDER.indexOf(a) - FILE_ORDER.indexOf(b) || a.localeCompare(b));
  const byId = new Map<string, FlagDefinition>();
  for (const file of files) {
    const source = readFileSync(join(ROOT, folder, file), 'utf8');
    for (const call of source.matchAll(/\bflag\(/g)) {
      const open = call.index + call[0].length - 1;
      if (/function\s+$/.test(source.slice(0, call.index))) continue;
      const args = callArguments(source, open);
      const id = stringLiteral(args[0]);
      if (id === undefined) continue;
      const severity = args[1] ?? '';
      let severities = SEVERITIES.filter((s) => severity.includes(`'${s}'`));
      if (severities.length === 0) {
        const ruleStart = Math.max(0, source.lastIndexOf('\nexport const ', open), source.lastIndexOf('\nfunction ', open), source.lastIndexOf('\nexport function ', open));
        const rule = source.slice(ruleStart, open);
        severities = SEVERITIES.filter((s) => rule.includes(`'${s}'`));
      }
      const title = templateText(args[2] ?? '');
      const known = byId.get(id) ?? { id, severities: [], titles: [] };
      known.severities = SEVERITIES.filter((s) => known.severities.includes(s) || severities.includes(s));
      if (title && !known.titles.includes(title)) known.titles.push(title);
      byId.set(id, known);
    }
  }
  return [...byId.values()];
}

/** The rule files in the order the analysis runs them (results before profiles, as index.ts does). */
const FILE_ORDER = ['result-flags.ts', 'profile-flags.ts', 'production-flags.ts', 'search-flags.ts', 'rules.ts'];

/** The arguments' source texts of the call whose `(` is at `open`. */
function callArguments(source: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < source.length; i++) {
    const c = source[i]!;
    if (c === "'" || c === '"' || c === '`') {
      i = skipString(source, i);
      continue;
    }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      depth--;
      if (depth === 0) {
        args.push(source.slice(start, i).trim());
        return args.filter(Boolean);
      }
    } else if (c === ',' && depth === 1) {
      args.push(source.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** The index of the quote closing the string literal that opens at `at`. */
function skipString(source: string, at: number): number {
  const quote = source[at]!;
  for (let i = at + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === quote) return i;
    else if (quote === '`' && source[i] === '$' && source[i + 1] === '{') {
      let depth = 0;
      for (i++; i < source.length; i++) {
        if (source[i] === "'" || source[i] === '"' || source[i] === '`') i = skipString(source, i);
        else if (source[i] === '{') depth++;
        else if (source[i] === '}' && --depth === 0) break;
      }
    }
  }
  return source.length;
}

function stringLiteral(text: string | undefined): string | undefined {
  return text !== undefined && /^'[^'\\]*'$/.test(text) ? text.slice(1, -1) : undefined;
}

/** A title as a reader sees it: a literal's text, a template's with `…` for what it fills in. */
function templateText(text: string): string {
  if (/^'[^'\\]*'$|^"[^"\\]*"$/.test(text)) return text.slice(1, -1);
  if (/^`[\s\S]*`$/.test(text)) return text.slice(1, -1).replace(/\$\{[^}]*\}/g, '…');
  return '';
}

/**
 * A folder's flags: the ids it raises and their titles from its calls, for the profile and run flags
 * their severities and when each is raised from the registry. A k6 script's flags keep the
 * severities its rules raise and their own "raised when", written by hand: the same id is raised
 * there by a script's options, not by a profile.
 */
function flagRows(folder: 'src/analysis/realism' | 'src/interop/k6/lint', withMeaning: boolean): string[][] {
  const registry = new Map<string, FlagSpec>(flagTable().map((f) => [f.id, f]));
  return flagDefinitions(folder).map((f) => {
    const spec = registry.get(f.id);
    if (spec === undefined) throw new Error(`${folder} raises flag ${f.id}, which src/analysis/realism/registry.ts does not list`);
    if (!withMeaning) return [`\`${f.id}\``, f.severities.join(' / '), f.titles.join('; ')];
    return [`\`${f.id}\``, spec.severities.join(' / '), f.titles.join('; '), spec.meaning];
  });
}

type FlagSpec = ReturnType<typeof flagTable>[number];

// ---------------------------------------------------------------------------------------------
// Profile and topology fields: the JSON Schema `stampede schema` prints, itself from the zod schema
// (src/profile/schema.ts, the protocols' sections in src/profile/protocols/*/section.ts, the
// topology in src/profile/topology/) and its `.meta` descriptions.

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  type?: string | string[];
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
};

function isDuration(s: Schema): boolean {
  return (s.anyOf ?? []).some((o) => typeof o.pattern === 'string' && o.pattern.includes('us|ms'));
}

/** A size or count distribution: a number or one of the distribution objects. */
function isDistribution(s: Schema): boolean {
  const variants = [...(s.anyOf ?? []), ...(s.oneOf ?? [])].flatMap((o) => [o, ...(o.oneOf ?? []), ...(o.anyOf ?? [])]);
  return variants.some((o) => o.properties?.type?.const === 'lognormal');
}

/** A field's type as a reader would write it. */
function typeOf(s: Schema): string {
  if (isDuration(s)) return (s.anyOf ?? []).some((o) => o.const === 'inf') ? 'duration or inf' : 'duration';
  if (isDistribution(s)) return 'distribution';
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => String(v)).join(' / ');
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) {
    const tagged = alternatives.map((o) => o.properties?.type?.const);
    if (tagged.every((t) => typeof t === 'string')) return `object: type ${tagged.join(' / ')}`;
    return [...new Set(alternatives.map(typeOf))].join(' or ');
  }
  if (s.type === 'array') return s.items ? `list of ${typeOf(s.items)}` : 'list';
  if (s.type === 'object') return s.properties ? 'object' : 'map';
  return Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any');
}

function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
}

/** Every field under `schema`, depth first: path, type, default, description. */
function fieldRows(schema: Schema, path: string, out: string[][] = []): string[][] {
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    const at = path === '' ? key : `${path}.${key}`;
    if (key === 'type' && field.const !== undefined) continue;
    const fallback = (field.anyOf ?? field.oneOf ?? []).find((o) => o.description)?.description;
    const defaultText = field.default === undefined ? '' : `\`${cell(JSON.stringify(field.default))}\``;
    out.push([`\`${at}\``, cell(typeOf(field)), defaultText, cell(field.description ?? fallback ?? '')]);
    nested(field, at, out);
  }
  return out;
}

/** The fields inside a field: of its object, its list's items, its map's values, each tagged variant. */
function nested(field: Schema, at: string, out: string[][]): void {
  if (isDistribution(field)) return;
  if (field.properties) fieldRows(field, at, out);
  if (field.items) nested(field.items, `${at}[]`, out);
  if (typeof field.additionalProperties === 'object') nested(field.additionalProperties, `${at}.<name>`, out);
  for (const variant of [...(field.anyOf ?? []), ...(field.oneOf ?? [])]) {
    const tag = variant.properties?.type?.const;
    if (variant.properties) fieldRows(variant, typeof tag === 'string' ? `${at}{type: ${tag}}` : at, out);
    else nested(variant, at, out);
  }
}

function profileFieldRows(): string[][] {
  const root = profileJsonSchema() as Schema;
  const { topology: _, ...fields } = root.properties ?? {};
  return fieldRows({ properties: fields }, '');
}

function topologyFieldRows(): string[][] {
  const topology = (profileJsonSchema() as Schema).properties?.topology;
  const inline = topology?.anyOf?.find((o) => o.properties) ?? topology;
  return inline ? fieldRows(inline, 'topology') : [];
}

// ---------------------------------------------------------------------------------------------
// Prometheus series: the registry of a run's metrics before its first interval (the series every
// run has; the gauge catalog's join as the run declares its gauges).

async function metricRows(): Promise<string[][]> {
  const metrics = await new RunMetrics().registry.getMetricsAsJSON();
  return metrics.map((m) => [`\`${m.name}\``, String(m.type), cell(m.help)]);
}

// ---------------------------------------------------------------------------------------------

export const TABLES: GeneratedTable[] = [
  { name: 'exit-codes', page: 'docs/commands.md', columns: ['code', 'name', 'what it means'], rows: exitCodeRows },
  { name: 'flags', page: 'docs/realism-flags.md', columns: ['id', 'severity', 'what it says', 'raised when'], rows: () => flagRows('src/analysis/realism', true) },
  { name: 'k6-flags', page: 'docs/k6.md', columns: ['id', 'severity', 'what it says', 'raised when'], kept: 1, rows: () => flagRows('src/interop/k6/lint', false) },
  { name: 'profile-fields', page: 'docs/profiles.md', columns: ['field', 'type', 'default', 'what it is'], rows: profileFieldRows },
  { name: 'topology-fields', page: 'docs/model.md', columns: ['field', 'type', 'default', 'what it is'], rows: topologyFieldRows },
  { name: 'metrics', page: 'docs/live.md', columns: ['series', 'type', 'help', 'labels and unit'], kept: 1, rows: metricRows },
];

const open = (name: string) => `<!-- generated:${name} -->`;
const close = (name: string) => `<!-- /generated:${name} -->`;

/** A Markdown table row. */
function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** The rows of a Markdown table, each as its cells (the header and the rule line left out). */
function tableCells(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

/** The text between a table's markers on a page, or undefined when the page has no markers for it. */
export function generatedRegion(page: string, name: string): string | undefined {
  const start = page.indexOf(open(name));
  const end = page.indexOf(close(name));
  return start < 0 || end < start ? undefined : page.slice(start + open(name).length, end);
}

/** The table as the code makes it now, hand cells kept from `current` (the region as the page has it). */
export async function renderTable(table: GeneratedTable, current = ''): Promise<string> {
  const kept = table.kept ?? 0;
  const hand = new Map(tableCells(current).map((cells) => [cells[0]!, cells.slice(cells.length - kept)]));
  const rows = (await table.rows()).map((cells) => [...cells, ...(hand.get(cells[0]!) ?? Array<string>(kept).fill(''))]);
  const rule = table.columns.map(() => '---');
  return `\n${[row(table.columns), row(rule), ...rows.map(row)].join('\n')}\n`;
}

/** What a table is missing that only a person can write: the rows whose hand cells are empty. */
export function emptyHandCells(table: GeneratedTable, region: string): string[] {
  const kept = table.kept ?? 0;
  if (kept === 0) return [];
  return tableCells(region)
    .filter((cells) => cells.slice(cells.length - kept).some((c) => c === ''))
    .map((cells) => cells[0]!);
}

/** The page with the table regenerated between its markers. @throws when the page has no markers for it */
export async function regenerate(page: string, table: GeneratedTable): Promise<string> {
  const region = generatedRegion(page, table.name);
  if (region === undefined) throw new Error(`${table.page}: no ${open(table.name)} … ${close(table.name)} markers`);
  const start = page.indexOf(open(table.name)) + open(table.name).length;
  return page.slice(0, start) + (await renderTable(table, region)) + page.slice(page.indexOf(close(table.name)));
}

/** Rewrites every page whose tables have drifted from the code; returns the tables it rewrote. */
export async function writeTables(root = ROOT): Promise<string[]> {
  const rewritten: string[] = [];
  for (const table of TABLES) {
    const file = join(root, table.page);
    const page = readFileSync(file, 'utf8');
    const next = await regenerate(page, table);
    if (next !== page) {
      writeFileSync(file, next);
      rewritten.push(`${table.page} (${table.name})`);
    }
  }
  return rewritten;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rewritten = await writeTables();
  process.stdout.write(rewritten.length === 0 ? 'docs tables: up to date\n' : `docs tables: rewrote ${rewritten.join(', ')}\n`);
  for (const table of TABLES) {
    const empty = emptyHandCells(table, generatedRegion(readFileSync(join(ROOT, table.page), 'utf8'), table.name) ?? '');
    if (empty.length > 0) process.stdout.write(`${table.page} (${table.name}): write the ${table.columns.at(-1)} of ${empty.join(', ')}\n`);
  }
}
