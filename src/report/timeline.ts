import type { RunAnalysis } from '../analysis/analyse-run.ts';
import { formatShare, formatUs } from '../analysis/format.ts';
import type { RecoveryCriteria, RunPart, TimelineAnalysis } from '../analysis/recovery.ts';
import type { ExecOutcome, TimelineOutcome } from '../recorder/driver-report.ts';
import type { RunResult } from '../recorder/result.ts';
import { markdownTable } from './table.ts';

/*
 * The timeline in the summary and report.md: every step with its planned and actual time and
 * what it did, the time to recover from each, the run split before / during / after, and (report
 * only) the intervals around the events with a marker where each happened.
 */

/** Most interval rows shown around the events; the full list is intervals.jsonl. */
const INTERVAL_ROWS = 60;
/** Output lines of a command shown in report.md (result.json keeps its whole tail). */
const EXEC_LINES = 12;

/** The heading of the timeline's section (report.html puts the event charts in it). */
export const TIMELINE_SECTION = 'Timeline';

/** The timeline sections, or [] when the run had no timeline. */
export function timelineSections(result: RunResult, analysis: RunAnalysis, full: boolean): string[] {
  const steps = result.timeline ?? [];
  if (steps.length === 0) return [];
  const lines = [
    '',
    `## ${TIMELINE_SECTION}`,
    '',
    'Times from the run’s start, warm-up included (as the profile’s timeline gives them).',
    '',
    eventTable(steps, analysis.timeline),
  ];
  const t = analysis.timeline;
  if (t) lines.push('', criteriaLine(t.criteria), '', partsTable(t));
  if (full) {
    for (const step of steps) if (step.exec) lines.push('', ...execBlock(step, step.exec));
    const intervals = intervalTable(result, t);
    if (intervals) lines.push('', '### Intervals around the events', '', intervals);
  }
  return lines;
}

const seconds = (ms: number) => `${Math.round(ms) / 1000}s`;

function eventTable(steps: readonly TimelineOutcome[], t: TimelineAnalysis | undefined): string {
  const rows = steps.map((s) => {
    const recovery = t?.events.find((e) => e.label === s.label && e.atMs === s.actualMs);
    return [
      seconds(s.plannedMs),
      s.actualMs === null ? s.status : seconds(s.actualMs),
      `${s.label}${s.exec ? ` → ${execResult(s.exec)}` : ''}`,
      recovery ? recoveryText(recovery.recoveryMs) : '–',
      recovery ? recovery.breached.join(', ') || 'nothing' : '',
    ];
  });
  return markdownTable(['planned', 'actual', 'event', 'recovered in', 'out of limits after it'], rows, ['r', 'r', 'l', 'r', 'l']);
}

/** "2.0s", "at once" or "did not recover within the run". */
export function recoveryText(ms: number | null): string {
  if (ms === null) return 'did not recover within the run';
  return ms === 0 ? 'at once' : formatUs(ms * 1000);
}

function execResult(e: ExecOutcome): string {
  if (e.error) return `could not start: ${e.error}`;
  if (e.timedOut) return `timed out after ${formatUs(e.durationMs * 1000)}`;
  if (e.exitCode === null) return `killed (${e.signal}) after ${formatUs(e.durationMs * 1000)}`;
  return `exit ${e.exitCode} in ${formatUs(e.durationMs * 1000)}`;
}

function execBlock(step: TimelineOutcome, e: ExecOutcome): string[] {
  const tail = e.outputTail.trimEnd().split('\n').slice(-EXEC_LINES);
  return [`Output of \`${e.argv.join(' ')}\` at ${step.actualMs === null ? '–' : seconds(step.actualMs)} (${execResult(e)}), last lines:`, '', '```', ...tail, '```'];
}

function criteriaLine(c: RecoveryCriteria): string {
  const parts = [
    ...(c.p99MaxUs === undefined ? [] : [`p99 ≤ ${formatUs(c.p99MaxUs)} (${c.p99From === 'slo' ? 'SLO' : 'twice the p99 before the first event'})`]),
    `error rate ≤ ${formatShare(c.errorRateMax)} (${c.errorRateFrom === 'slo' ? 'SLO' : 'default'})`,
    ...Object.entries(c.hitRatioMin).map(([key, min]) => `${key} ≥ ${formatShare(min)}`),
  ];
  return `Recovered: ${c.holdPoints} intervals of ${formatUs(c.spanMs * 1000)} in a row with ${parts.join(', ')}.`;
}

function partsTable(t: TimelineAnalysis): string {
  const keys = [...new Set(Object.values(t.parts).flatMap((p) => Object.keys(p.hitRatio)))].sort();
  const row = (name: string, p: RunPart | undefined) =>
    p
      ? [
          name,
          seconds(p.fromMs),
          seconds(p.toMs),
          String(p.sent),
          formatShare(p.errorRate),
          p.worstP99Us > 0 ? formatUs(p.worstP99Us) : '–',
          ...keys.map((k) => (p.hitRatio[k] === undefined ? '–' : formatShare(p.hitRatio[k]))),
        ]
      : [name, '–', '–', '–', '–', '–', ...keys.map(() => '–')];
  const rows = [row('before', t.parts.before), row('during', t.parts.during), row('after', t.parts.after)];
  return markdownTable(['part', 'from', 'to', 'sent', 'error rate', 'worst interval p99', ...keys], rows, ['l', 'r', 'r', 'r', 'r', 'r', ...keys.map(() => 'r' as const)]);
}

/** The series points from a few before the first event to a few after the last recovery, each event marked in its interval. */
function intervalTable(result: RunResult, t: TimelineAnalysis | undefined): string | undefined {
  const { series, spanMs } = result.intervals;
  const steps = (result.timeline ?? []).filter((s) => s.actualMs !== null);
  if (series.length === 0 || steps.length === 0) return undefined;
  const first = Math.min(...steps.map((s) => s.actualMs!));
  const last = Math.max(...steps.map((s) => s.actualMs!), ...(t?.events ?? []).map((e) => e.atMs + (e.recoveryMs ?? 0)));
  const from = series.findIndex((p) => p.tMs + spanMs > first);
  let to = series.findIndex((p) => p.tMs > last);
  if (to < 0) to = series.length;
  const shown = series.slice(Math.max(0, from - 3), Math.min(series.length, to + 3, Math.max(0, from - 3) + INTERVAL_ROWS));
  const keys = [...new Set(shown.flatMap((p) => Object.keys(p.gauges).filter((k) => k.split('.')[0] === 'hitRatio')))].sort();
  const rows = shown.map((p) => {
    const marks = steps.filter((s) => s.actualMs! >= p.tMs && s.actualMs! < p.tMs + spanMs).map((s) => `◆ ${s.label}`);
    return [
      seconds(p.tMs),
      String(p.sent),
      String(p.failed + p.dropped),
      p.ok + p.failed > 0 ? formatUs(p.latencyUs.p99) : '–',
      ...keys.map((k) => (p.gauges[k] === undefined ? '–' : formatShare(p.gauges[k]))),
      marks.join('; '),
    ];
  });
  return markdownTable(['t', 'sent', 'failed', 'p99', ...keys, 'event'], rows, ['r', 'r', 'r', 'r', ...keys.map(() => 'r' as const), 'l']);
}
