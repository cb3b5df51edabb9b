import { formatRatio, formatUs } from '../analysis/slo.ts';
import type { BreakdownResult } from '../recorder/breakdown.ts';
import type { LatencySummary } from '../recorder/histograms.ts';
import type { RunResult } from '../recorder/result.ts';
import { markdownTable } from './table.ts';

/** The run summary a person reads: the same text in the terminal and in summary.md. */
export function renderSummary(result: RunResult): string {
  const verdict = result.slo.checks.length === 0 ? 'NO SLO' : result.slo.pass ? 'PASS' : 'FAIL';
  const r = result.requests;
  const lines = [
    `# ${result.profile.name}: ${verdict}${result.interrupted ? ' (interrupted: partial results)' : ''}`,
    '',
    result.profile.description.trim(),
    '',
    `target ${result.target} · seed ${result.seed} · measured ${formatUs(result.durationMs * 1000)}${result.warmupMs > 0 ? ` after ${formatUs(result.warmupMs * 1000)} warm-up` : ', no warm-up'} · profile sha256 ${result.profile.sha256.slice(0, 12)}`,
    '',
    `requests: ${r.sent} sent of ${r.expected} expected (${result.rate.achievedRps} of ${result.rate.askedRps} rps asked) · ${r.ok} ok · ${r.failed} failed · ${r.dropped} dropped · ${r.inFlightAtEnd} unfinished`,
  ];
  const errors = Object.entries(result.errors).sort((a, b) => b[1] - a[1]);
  if (errors.length > 0) lines.push(`errors: ${errors.map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
  lines.push('', '## Latency (from intended send time)', '', latencyTable(result));
  const gauges = gaugeTable(result);
  if (gauges) lines.push('', '## Gauges over the intervals', '', gauges);
  if (result.slo.checks.length > 0) lines.push('', '## SLO', '', sloTable(result));
  return lines.filter((l, i, all) => !(l === '' && all[i - 1] === '')).join('\n') + '\n';
}

export function latencyTable(result: RunResult): string {
  const rows: string[][] = [
    row('all', result.requests.ok + result.requests.failed, result.requests.failed, result.latencyUs),
    row('  ok', result.byOutcome.ok.requests, 0, result.byOutcome.ok.latencyUs),
    row('  failed', result.byOutcome.failed.requests, result.byOutcome.failed.requests, result.byOutcome.failed.latencyUs),
    row('service time', result.serviceTimeUs.count, result.requests.failed, result.serviceTimeUs),
  ];
  const kinds = Object.entries(result.byKind);
  if (kinds.length > 1) kinds.forEach(([kind, b]) => rows.push(breakdownRow(`kind ${kind}`, b)));
  const clients = Object.entries(result.byClient);
  if (clients.length > 1) clients.forEach(([client, b]) => rows.push(breakdownRow(`client ${client}`, b)));
  return markdownTable(['slice', 'requests', 'failed', 'p50', 'p90', 'p99', 'p99.9', 'max'], rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r']);
}

function breakdownRow(label: string, b: BreakdownResult): string[] {
  return row(label, b.requests, b.failed, b.latencyUs);
}

function row(label: string, requests: number, failed: number, l: LatencySummary): string[] {
  const cell = (us: number) => (l.count === 0 ? '–' : formatUs(us));
  return [label, String(requests), String(failed), cell(l.p50), cell(l.p90), cell(l.p99), cell(l.p999), cell(l.max)];
}

export function sloTable(result: RunResult): string {
  const rows = result.slo.checks.map((c) => [
    c.pass ? 'pass' : 'FAIL',
    c.name,
    c.unit === 'us' ? formatUs(c.actual) : formatRatio(c.actual),
    c.note ?? '',
  ]);
  return markdownTable(['', 'check', 'measured', 'note'], rows);
}

/** Min, max and final value of every gauge the driver reported: what explains a collapse (TIME_WAIT, queues, hit ratio). */
export function gaugeTable(result: RunResult): string | undefined {
  const names = [...new Set(result.intervals.flatMap((i) => Object.keys(i.gauges)))];
  if (names.length === 0) return undefined;
  const rows = names.map((name) => {
    const values = result.intervals.map((i) => i.gauges[name]).filter((v): v is number => v !== undefined);
    const format = name.startsWith('hitRatio') ? (v: number) => `${(v * 100).toFixed(1)}%` : (v: number) => String(Number(v.toPrecision(4)));
    return [name, format(Math.min(...values)), format(Math.max(...values)), format(values[values.length - 1]!)];
  });
  return markdownTable(['gauge', 'min', 'max', 'last'], rows, ['l', 'r', 'r', 'r']);
}
