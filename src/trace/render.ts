import type { TraceReadSummary } from './read.ts';
import type { TraceStats } from './stats.ts';

/** The statistics as the terminal shows them: the published table's fields first, then the shape over time. */
export function renderTraceStats(file: string, read: TraceReadSummary, stats: TraceStats): string {
  const { keys, values, rate } = stats;
  const rows: [string, string][] = [
    ['requests', `${stats.requests.toLocaleString('en-US')} over ${formatDuration(stats.durationS)}${read.compressed ? ' (zstd)' : ''}`],
    ['request rate', `${formatRate(rate.meanPerS)} mean, ${formatRate(rate.peakPerS)} peak second, ${formatRate(rate.lowestPerS)} lowest`],
    ['operations', formatShares(Object.entries(stats.operations))],
    ['key size', `${keys.sizeMean.toFixed(1)} B mean`],
    [
      'value size',
      values.requestsWithValue > 0 ? `${values.sizeMean.toFixed(1)} B mean, p50 ${values.p50}, p90 ${values.p90}, p99 ${values.p99}, max ${values.max} B` : 'no values',
    ],
    ['distinct keys', keys.distinct.toLocaleString('en-US')],
    ['mean object frequency', keys.meanFrequency.toFixed(1)],
    ['one-hit wonders', `${percent(keys.oneHitWonderRatio)} of keys`],
    ['compulsory misses', `${percent(keys.compulsoryMissRatio)} of requests`],
    ['working set', formatBytes(keys.workingSetBytes)],
    [
      'Zipf alpha',
      keys.zipf
        ? `${keys.zipf.alpha.toFixed(3)} (frequencies within ×${keys.zipf.deviation.toFixed(2)} of the line over the top ${keys.zipf.ranks.toLocaleString('en-US')} keys)`
        : 'too few repeated keys to fit',
    ],
    ['top keys', keys.topShares.map((t) => `${t.keys}: ${percent(t.share)}`).join(', ')],
    ['common TTLs', stats.ttls.length > 0 ? stats.ttls.map((t) => `${formatDuration(t.ttlS)}:${t.share.toFixed(2)}`).join(' ') : 'no writes'],
    [
      'clients',
      `${stats.clients.distinct}${
        stats.clients.top.length > 0
          ? `; busiest ${stats.clients.top
              .slice(0, 3)
              .map((c) => `${c.client || '(none)'} ${percent(c.share)}`)
              .join(', ')}`
          : ''
      }`,
    ],
    ['hot-key episodes', hotEpisodes(stats)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = [`trace ${file}`, ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)];
  if (read.headerSkipped) lines.push('  (the first line was a header)');
  if (read.malformed > 0)
    lines.push(`  skipped ${read.malformed} malformed line${read.malformed === 1 ? '' : 's'}: ${read.firstMalformed.map((m) => `line ${m.line}: ${m.problem}`).join('; ')}`);
  if (read.interrupted) lines.push('  interrupted: these statistics cover the lines read before the signal');
  return `${lines.join('\n')}\n`;
}

function hotEpisodes(stats: TraceStats): string {
  if (stats.durationS < 180) return 'none sought (the trace is shorter than 3 minutes)';
  if (stats.hotKeyEpisodes.length === 0) return 'none (no key took 3× its usual share of a minute)';
  const shown = stats.hotKeyEpisodes.slice(0, 3).map((e) => `${e.key} from ${e.start}, peak ${percent(e.peak)} of a minute`);
  const more = stats.hotKeyEpisodes.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? `; ${more} more in the JSON` : ''}`;
}

function formatShares(entries: [string, number][]): string {
  return entries
    .sort((a, b) => b[1] - a[1])
    .map(([name, share]) => `${name}:${share.toFixed(3)}`)
    .join(' ');
}

function percent(share: number): string {
  const p = share * 100;
  return `${p >= 10 || p === 0 ? p.toFixed(1) : p.toPrecision(2)}%`;
}

function formatRate(perS: number): string {
  return perS >= 1000 ? `${(perS / 1000).toFixed(2)}k/s` : `${perS.toFixed(1)}/s`;
}

/** 240 → "240s", 172800 → "2d", as the published table writes TTLs. */
function formatDuration(seconds: number): string {
  if (seconds >= 86400 && seconds % 86400 === 0) return `${seconds / 86400}d`;
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600}h`;
  return `${seconds}s`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(2)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
