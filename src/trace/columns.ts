/*
 * Where each field of a request sits in a trace's lines. The default is the public Twitter
 * cache-trace format (twitter/cache-trace README): `timestamp,anonymized key,key size,value size,
 * client id,operation,TTL`, timestamps in seconds. Other CSV traces name their columns with
 * `--columns`, by 1-based position (as `cut -f` counts) or by a header row's names.
 */

export const TRACE_FIELDS = ['timestamp', 'key', 'keySize', 'valueSize', 'client', 'operation', 'ttl'] as const;
export type TraceField = (typeof TRACE_FIELDS)[number];

/** How a trace's lines are laid out: each field's 0-based column (absent: the trace has none), the delimiter, the time unit. */
export interface TraceLayout {
  columns: Partial<Record<TraceField, number>>;
  /** Columns named by a header row, resolved to positions when the first line is read. */
  headerNames?: Partial<Record<TraceField, string>>;
  delimiter: number;
  /** Seconds per timestamp unit: 1 for seconds, 0.001 for milliseconds. */
  secondsPerUnit: number;
}

export const TWITTER_LAYOUT: TraceLayout = {
  columns: { timestamp: 0, key: 1, keySize: 2, valueSize: 3, client: 4, operation: 5, ttl: 6 },
  delimiter: 0x2c,
  secondsPerUnit: 1,
};

export const TIME_UNITS = { s: 1, ms: 1e-3, us: 1e-6, ns: 1e-9 } as const;
export type TimeUnit = keyof typeof TIME_UNITS;

/** A layout option that cannot be read: the option and the reason, for its message. */
export class ColumnsError extends Error {
  override readonly name = 'ColumnsError';

  constructor(
    readonly option: '--columns' | '--delimiter',
    message: string,
  ) {
    super(message);
  }
}

/** The layout the options give: the public format unless `columns` names others. @throws ColumnsError */
export function layoutOf(options: { columns?: string; delimiter: string; unit: TimeUnit }): TraceLayout {
  const { delimiter, unit } = options;
  if (delimiter.length !== 1 || delimiter.charCodeAt(0) > 0x7f) throw new ColumnsError('--delimiter', `the delimiter must be one ASCII character, not "${delimiter}"`);
  const named = options.columns === undefined ? { columns: TWITTER_LAYOUT.columns } : parseColumns(options.columns);
  return { ...named, delimiter: delimiter.charCodeAt(0), secondsPerUnit: TIME_UNITS[unit] };
}

/**
 * The columns a `--columns` text names ("timestamp=1,key=2,operation=4" or "timestamp=ts,key=k" for
 * a header row's names); a trace needs at least its timestamp and key. @throws ColumnsError
 */
function parseColumns(text: string): Pick<TraceLayout, 'columns' | 'headerNames'> {
  const columns: Partial<Record<TraceField, number>> = {};
  const headerNames: Partial<Record<TraceField, string>> = {};
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const [name, where, ...rest] = pair.split('=').map((p) => p.trim());
    const field = TRACE_FIELDS.find((f) => f === name);
    if (field === undefined) throw new ColumnsError('--columns', `"${name}" is not a trace field (fields: ${TRACE_FIELDS.join(', ')})`);
    if (where === undefined || where === '' || rest.length > 0) throw new ColumnsError('--columns', `"${pair}": expected ${field}=<column number or header name>`);
    if (field in columns || field in headerNames) throw new ColumnsError('--columns', `${field} is given twice`);
    if (/^\d+$/.test(where)) {
      const position = Number(where);
      if (position < 1) throw new ColumnsError('--columns', `${field}=${where}: columns count from 1`);
      columns[field] = position - 1;
    } else headerNames[field] = where;
  }
  for (const required of ['timestamp', 'key'] as const)
    if (!(required in columns) && !(required in headerNames)) throw new ColumnsError('--columns', `no ${required} column: a trace needs at least timestamp and key`);
  if (Object.keys(columns).length > 0 && Object.keys(headerNames).length > 0)
    throw new ColumnsError('--columns', 'give every column by number or every column by header name, not both');
  return { columns, ...(Object.keys(headerNames).length > 0 && { headerNames }) };
}

/** The layout with a header row's names resolved to positions. @throws ColumnsError naming a missing one */
export function resolveHeader(layout: TraceLayout, header: readonly string[]): TraceLayout {
  if (layout.headerNames === undefined) return layout;
  const columns: Partial<Record<TraceField, number>> = {};
  for (const [field, name] of Object.entries(layout.headerNames) as [TraceField, string][]) {
    const position = header.indexOf(name);
    if (position < 0) throw new ColumnsError('--columns', `the header has no column "${name}" for ${field} (it has: ${header.join(', ')})`);
    columns[field] = position;
  }
  return { columns, delimiter: layout.delimiter, secondsPerUnit: layout.secondsPerUnit };
}
