import type { RunResult } from '../recorder/result.ts';
import { markdownTable } from './table.ts';

/** The ops of the table, each with memcached's counters for its outcomes (hit/stored, miss/not stored). */
const ROWS: [op: string, done: string, notDone: string][] = [
  ['get', 'get_hits', 'get_misses'],
  ['set', 'cmd_set', ''],
  ['add', 'add_stored', 'add_not_stored'],
  ['replace', 'replace_stored', 'replace_not_stored'],
  ['cas', 'cas_hits', 'cas_misses'],
  ['append', 'append_stored', 'append_not_stored'],
  ['prepend', 'prepend_stored', 'prepend_not_stored'],
  ['delete', 'delete_hits', 'delete_misses'],
  ['incr', 'incr_hits', 'incr_misses'],
  ['decr', 'decr_hits', 'decr_misses'],
  ['touch', 'touch_hits', 'touch_misses'],
];

/**
 * "Cache operations": per model cache that executed ops other than get and set (or set TTLs), how
 * each op came out, by memcached's stat names. Nothing for runs without (their report is unchanged).
 */
export function cacheOperationsSection(result: RunResult): string[] {
  const caches = (result.driver.model?.['caches'] ?? {}) as Record<string, { operations?: Record<string, number> }>;
  const lines: string[] = [];
  for (const [name, cache] of Object.entries(caches)) {
    const ops = cache.operations;
    if (ops === undefined) continue;
    const rows = ROWS.flatMap(([op, done, notDone]) => {
      const yes = ops[done] ?? 0;
      const no = notDone === '' ? 0 : (ops[notDone] ?? 0);
      if (yes + no === 0) return [];
      // set's row is every storage command less the outcomes listed on their own rows.
      const n = op === 'set' ? storesBySet(ops) : yes;
      return n + no === 0 ? [] : [[op, String(n), notDone === '' ? '' : String(no), notDone === '' ? done : `${done} / ${notDone}`]];
    });
    lines.push('', `## Cache operations (${name})`, '', markdownTable(['op', 'hit / stored', 'miss / not stored', 'memcached stats'], rows, ['l', 'r', 'r', 'l']));
    lines.push(
      '',
      `evictions ${ops['evictions'] ?? 0} · expired on access ${ops['get_expired'] ?? 0} gets · expired_unfetched ${ops['expired_unfetched'] ?? 0} · fills of misses ${ops['fills'] ?? 0} (in cmd_set)`,
    );
  }
  return lines;
}

/** cmd_set less the other storage commands and the fills: the plain sets. */
function storesBySet(ops: Record<string, number>): number {
  const others = [
    'add_stored',
    'add_not_stored',
    'replace_stored',
    'replace_not_stored',
    'cas_hits',
    'cas_misses',
    'append_stored',
    'append_not_stored',
    'prepend_stored',
    'prepend_not_stored',
    'fills',
  ];
  return (ops['cmd_set'] ?? 0) - others.reduce((sum, k) => sum + (ops[k] ?? 0), 0);
}
