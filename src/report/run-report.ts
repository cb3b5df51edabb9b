import { formatUs } from '../analysis/format.ts';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import type { RunResult } from '../recorder/result.ts';
import { cacheOperationsSection } from './cache-operations.ts';
import { flagsMarkdown } from './flags.ts';
import { verdictHeading, gaugeTable, generatorLine, latencyTable, sloTable, transportSection } from './summary.ts';
import { markdownTable } from './table.ts';
import { timelineSections } from './timeline.ts';

/**
 * report.md for one run: verdict first with its reasons, then the realism flags, the timeline
 * (its events and how long each took to recover), the latency table per kind and per client, the
 * SLO checks and the gauges. A pure function of its input.
 */
export function renderRunReport(result: RunResult, analysis: RunAnalysis): string {
  const { flags } = analysis;
  const r = result.requests;
  const lines = [
    verdictHeading(result, analysis),
    '',
    ...analysis.reasons.map((reason) => `- ${reason}`),
    '',
    result.profile.description.trim(),
    '',
    `target ${result.target} · seed ${result.seed} · measured ${formatUs(result.durationMs * 1000)}${result.warmupMs > 0 ? ` after ${formatUs(result.warmupMs * 1000)} warm-up` : ', no warm-up'} · profile sha256 ${result.profile.sha256.slice(0, 12)}${result.profile.overrides.length > 0 ? ` · overrides: ${result.profile.overrides.map((o) => `\`${o}\``).join(' ')}` : ''}`,
    '',
    `requests: ${r.sent} sent of ${r.expected} expected in the measured window (${result.rate.achievedRps} of ${result.rate.askedRps} rps asked) · ${r.ok} ok · ${r.failed} failed${r.notSent > 0 ? ` (${r.notSent} before reaching the wire)` : ''} · ${r.dropped} dropped · ${r.inFlightAtEnd} unfinished`,
  ];
  const errors = Object.entries(result.errors).sort((a, b) => b[1] - a[1]);
  if (errors.length > 0) lines.push(`errors: ${errors.map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
  lines.push('', '## Realism flags', '', flagsMarkdown(flags));
  // A failover rehearsal is read by its recovery: the timeline comes before the details.
  lines.push(...timelineSections(result, analysis, true));
  lines.push('', '## Latency by kind and client (from intended send time)', '', latencyTable(result));
  if (analysis.slo.checks.length > 0) lines.push('', '## SLO', '', sloTable(analysis.slo));
  const gauges = gaugeTable(result);
  if (gauges) lines.push('', '## Gauges over the intervals', '', gauges);
  lines.push(...cacheOperationsSection(result));
  lines.push(...transportSection(result));
  if (result.generator) lines.push('', '## Load generator', '', generatorLine(result, analysis));
  lines.push(
    '',
    '## Limits behind the verdict',
    '',
    markdownTable(
      ['limit', 'value', 'meaning'],
      analysis.limits.map((l) => [l.name, l.value, l.meaning]),
    ),
  );
  return `${lines.join('\n')}\n`;
}
