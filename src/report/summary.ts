import type { RunAnalysis } from '../analysis/analyse-run.ts';
import { formatShare, formatUs, formatUsAgainst } from '../analysis/format.ts';
import type { SloVerdict } from '../analysis/slo.ts';
import { describeTransport } from '../profile/protocols/registry.ts';
import { parseGaugeKey, peakKey, specOf, type GaugeUnit } from '../recorder/gauges.ts';
import type { BreakdownResult } from '../recorder/breakdown.ts';
import type { LatencySummary } from '../recorder/histograms.ts';
import type { RunResult } from '../recorder/result.ts';
import { markdownTable } from './table.ts';
import { timelineSections } from './timeline.ts';

/** The first line of the summary and of report.md: the profile and the verdict, and whether the run was cut short. */
export function verdictHeading(result: RunResult, analysis: RunAnalysis): string {
  return `# ${result.profile.name}: ${analysis.verdict}${result.interrupted ? ' (interrupted: partial results)' : ''}`;
}

/** The run summary a person reads: the same text in the terminal and in summary.md, led by the analysis's verdict. */
export function renderSummary(result: RunResult, analysis: RunAnalysis): string {
  const r = result.requests;
  const lines = [
    verdictHeading(result, analysis),
    '',
    ...analysis.reasons.map((reason) => `- ${reason}`),
    '',
    result.profile.description.trim(),
    '',
    `target ${result.target} · seed ${result.seed} · measured ${formatUs(result.durationMs * 1000)}${result.warmupMs > 0 ? ` after ${formatUs(result.warmupMs * 1000)} warm-up` : ', no warm-up'} · profile sha256 ${result.profile.sha256.slice(0, 12)}`,
    '',
    `requests: ${r.sent} sent of ${r.expected} expected in the measured window (${result.rate.achievedRps} of ${result.rate.askedRps} rps asked) · ${r.ok} ok · ${r.failed} failed${r.notSent > 0 ? ` (${r.notSent} before reaching the wire)` : ''} · ${r.dropped} dropped · ${r.inFlightAtEnd} unfinished`,
  ];
  const errors = Object.entries(result.errors).sort((a, b) => b[1] - a[1]);
  if (errors.length > 0) lines.push(`errors: ${errors.map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
  lines.push('', '## Latency (from intended send time)', '', latencyTable(result));
  const gauges = gaugeTable(result);
  if (gauges) lines.push('', '## Gauges over the intervals', '', gauges);
  if (analysis.slo.checks.length > 0) lines.push('', '## SLO', '', sloTable(analysis.slo));
  lines.push(...timelineSections(result, analysis, false));
  if (analysis.flags.length > 0) lines.push('', '## Realism flags', '', ...analysis.flags.map((f) => `- ${f.severity}: ${f.title} (${f.evidence})`));
  lines.push(...transportSection(result));
  if (result.generator) lines.push('', '## Load generator', '', generatorLine(result, analysis));
  return `${lines.filter((l, i, all) => !(l === '' && all[i - 1] === '')).join('\n')}\n`;
}

/** Reasons on the verdict line are cut here: the full ones are in the summary above it. */
const VERDICT_LINE_REASON_CHARS = 120;

/**
 * The verdict and its reasons on one line, the last a command prints (what a CI log shows last):
 * `INVALID: the load generator was the limit (…); p99: measured 61ms > 50ms`.
 */
export function verdictLine(verdict: string, reasons: readonly string[]): string {
  const cut = (r: string) => (r.length > VERDICT_LINE_REASON_CHARS ? `${r.slice(0, VERDICT_LINE_REASON_CHARS - 1)}…` : r);
  return reasons.length === 0 ? verdict : `${verdict}: ${reasons.map(cut).join('; ')}`;
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

export function sloTable(slo: SloVerdict): string {
  const rows = slo.checks.map((c) => [
    c.pass ? 'pass' : 'FAIL',
    c.name,
    c.unmeasured ? '–' : c.unit === 'us' ? formatUsAgainst(c.actual, c.limit) : formatShare(c.actual),
    c.note ?? '',
  ]);
  return markdownTable(['', 'check', 'measured', 'note'], rows);
}

/**
 * Min, max and final value of every gauge the driver reported: what explains a collapse (TIME_WAIT,
 * queues, hit ratio). A point-sampled gauge with a per-interval maximum shows that maximum beside
 * its samples' (a burst between two samples shows only there), in place of a row of its own.
 */
export function gaugeTable(result: RunResult): string | undefined {
  const gauges = result.intervals.gauges;
  const keys = Object.keys(gauges);
  if (keys.length === 0) return undefined;
  const rows = keys
    .filter((key) => !isShownBeside(result, key))
    .map((key) => {
      const s = gauges[key]!;
      const format = gaugeFormatter(specOf(result.gauges, key)?.unit);
      const peak = peakKey(result.gauges, key);
      const atAnyMoment = peak === key ? undefined : gauges[peak];
      return [key, format(s.min), format(s.max), atAnyMoment ? format(atAnyMoment.max) : '–', format(s.last)];
    });
  return markdownTable(['gauge', 'min', 'max sampled', 'max at any moment', 'last'], rows, ['l', 'r', 'r', 'r', 'r']);
}

/** A per-interval maximum whose sampled gauge the run reported too: its figure sits on that gauge's row. */
function isShownBeside(result: RunResult, key: string): boolean {
  const of = specOf(result.gauges, key)?.maxOf;
  if (of === undefined) return false;
  const { instance } = parseGaugeKey(key);
  return result.intervals.gauges[instance === undefined ? of : `${of}.${instance}`] !== undefined;
}

/** A gauge value as its unit reads: ratios as percentages, the rest at four significant digits. */
export function gaugeFormatter(unit: GaugeUnit | undefined): (v: number) => string {
  if (unit === 'ratio') return formatShare;
  return (v) => String(Number(v.toPrecision(4)));
}

/** What a real target's transport saw, in its protocol's words (its spec's report.describe); none for the model. */
export function transportSection(result: RunResult): string[] {
  const transport = result.driver.transport;
  return transport ? ['', '## Transport', '', ...describeTransport(transport).map((line) => `- ${line}`)] : [];
}

/** The generator's figures in one line, with the analysis's judgement. */
export function generatorLine(result: RunResult, analysis: RunAnalysis): string {
  const g = result.generator!;
  const judged = analysis.generator;
  const state = judged?.saturated ? `saturated: ${judged.reasons.join('; ')}` : 'not saturated';
  const target = analysis.saturation ? `\n\n${capitalise(analysis.saturation.text)}` : '';
  return `event-loop lag p99 ${g.eventLoopLagMs.p99} ms · CPU ${(g.cpu * 100).toFixed(0)}% of a core (busiest measured interval ${(g.cpuPeak * 100).toFixed(0)}%) · send lateness p99 ${formatUs(g.sendLatenessUs.p99)} · dispatch lateness p99 ${formatUs(g.dispatchLatenessUs.p99)} · ${state}${target}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
