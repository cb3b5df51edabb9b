import { formatRatio, formatUs } from '../analysis/slo.ts';
import type { Verdict } from '../realism/index.ts';
import type { RealismFlag } from '../realism/types.ts';
import type { RunResult } from '../recorder/result.ts';
import { flagsMarkdown } from './flags.ts';
import { gaugeTable, latencyTable, sloTable } from './summary.ts';

export interface RunReportInput {
  result: RunResult;
  flags: readonly RealismFlag[];
  verdict: Verdict;
}

/** Why the verdict is what it is: the failed SLO checks and the invalid flags, one line each. */
export function verdictReasons({ result, flags, verdict }: RunReportInput): string[] {
  const reasons = flags.filter((f) => f.severity === 'invalid').map((f) => `${f.title} (${f.evidence})`);
  for (const c of result.slo.checks.filter((c) => !c.pass)) {
    reasons.push(`${c.name}: measured ${c.unit === 'us' ? formatUs(c.actual) : formatRatio(c.actual)}${c.note ? ` (${c.note})` : ''}`);
  }
  if (verdict === 'PASS') reasons.push(`every SLO check held (${result.slo.checks.map((c) => c.name).join(', ')})`);
  if (verdict === 'NO SLO') reasons.push('the profile has no SLO: nothing to judge');
  if (result.interrupted) reasons.push('interrupted: partial results');
  return reasons;
}

/**
 * report.md for one run: verdict first with its reasons, then the realism flags, the latency
 * table per kind and per client, the gauges and the SLO checks. A pure function of its input.
 */
export function renderRunReport(input: RunReportInput): string {
  const { result, flags, verdict } = input;
  const r = result.requests;
  const lines = [
    `# ${result.profile.name}: ${verdict}`,
    '',
    ...verdictReasons(input).map((reason) => `- ${reason}`),
    '',
    result.profile.description.trim(),
    '',
    `target ${result.target} · seed ${result.seed} · measured ${formatUs(result.durationMs * 1000)}${result.warmupMs > 0 ? ` after ${formatUs(result.warmupMs * 1000)} warm-up` : ', no warm-up'} · profile sha256 ${result.profile.sha256.slice(0, 12)}${result.profile.overrides.length > 0 ? ` · overrides: ${result.profile.overrides.map((o) => `\`${o}\``).join(' ')}` : ''}`,
    '',
    `requests: ${r.sent} sent of ${r.expected} expected (${result.rate.achievedRps} of ${result.rate.askedRps} rps asked) · ${r.ok} ok · ${r.failed} failed · ${r.dropped} dropped · ${r.inFlightAtEnd} unfinished`,
  ];
  const errors = Object.entries(result.errors).sort((a, b) => b[1] - a[1]);
  if (errors.length > 0) lines.push(`errors: ${errors.map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
  lines.push('', '## Realism flags', '', flagsMarkdown(flags));
  lines.push('', '## Latency by kind and client (from intended send time)', '', latencyTable(result));
  if (result.slo.checks.length > 0) lines.push('', '## SLO', '', sloTable(result));
  const gauges = gaugeTable(result);
  if (gauges) lines.push('', '## Gauges over the intervals', '', gauges);
  if (result.generator) {
    const g = result.generator;
    lines.push('', '## Load generator', '', `event-loop lag p99 ${g.eventLoopLagMs.p99} ms · CPU ${(g.cpu * 100).toFixed(0)}% of a core · send lateness p99 ${formatUs(g.sendLatenessUs.p99)} · ${g.saturated ? `saturated: ${g.reasons.join('; ')}` : 'not saturated'}`);
  }
  return lines.join('\n') + '\n';
}
