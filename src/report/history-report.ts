import { compareQuantiles, quantileWithInterval } from '../analysis/quantile-ci.ts';
import { formatShare, formatUs } from '../analysis/format.ts';
import { trendChart } from './charts.ts';
import { renderHtmlPage, type HtmlChart } from './html.ts';
import type { Snapshot } from '../analysis/compare.ts';
import { markdownTable } from './table.ts';

/**
 * The trend of a folder of runs (one a night): Markdown table and charts of capacity and p99. An
 * interrupted run stays in the table, flagged, but is no trend point: it is not compared with the
 * night before, the next night is compared with the last complete one, and the charts leave it out.
 */
export function renderHistory(snapshots: readonly Snapshot[]): { markdown: string; html: string } {
  const sorted = [...snapshots].sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.label.localeCompare(b.label)));
  let previous: Snapshot | undefined;
  const rows = sorted.map((s) => {
    if (s.interrupted) return [s.label, s.profileName, `${s.verdict} (**interrupted**)`, '–', '–', '–', 'interrupted: partial, not compared'];
    let trend = '';
    if (previous?.latency && s.latency) {
      const change = compareQuantiles(quantileWithInterval(previous.latency, 99), quantileWithInterval(s.latency, 99));
      trend = change === 'regressed' ? '**p99 regressed**' : change === 'improved' ? 'p99 improved' : 'p99 same';
    }
    previous = s;
    return [
      s.label,
      s.profileName,
      s.verdict,
      s.capacityRps !== undefined ? `${Math.round(s.capacityRps)}` : '–',
      s.p99Us !== undefined ? formatUs(s.p99Us) : '–',
      formatShare(s.requests.total > 0 ? s.requests.failed / s.requests.total : 0),
      trend,
    ];
  });
  const regressions = rows.filter((r) => r[6] === '**p99 regressed**').length;
  const interrupted = sorted.filter((s) => s.interrupted).length;
  const markdown = [
    `# history: ${sorted.length} runs`,
    '',
    ...(interrupted > 0 ? [`- ${interrupted} run(s) interrupted: partial figures, left out of the trend and the charts`] : []),
    `- ${regressions === 0 ? 'no night regressed its p99 against the night before' : `${regressions} night(s) regressed p99 against the night before`} (99% confidence intervals from the histograms)`,
    '',
    '## Trend',
    '',
    markdownTable(['run', 'profile', 'verdict', 'capacity rps', 'p99', 'error rate', 'vs previous'], rows, ['l', 'l', 'l', 'r', 'r', 'r', 'l']),
    '',
  ].join('\n');
  const complete = sorted.filter((s) => !s.interrupted);
  const labels = complete.map((s) => s.label);
  const charts: HtmlChart[] = [];
  if (complete.some((s) => s.capacityRps !== undefined)) {
    charts.push({
      title: 'Capacity per night',
      option: trendChart('Capacity per night', 'req/s', labels, [{ name: 'capacity', values: complete.map((s) => s.capacityRps ?? null) }]),
    });
  }
  charts.push({
    title: 'p99 per night',
    option: trendChart('p99 per night', 'ms', labels, [{ name: 'p99', values: complete.map((s) => (s.p99Us !== undefined ? s.p99Us / 1000 : null)) }], true),
  });
  const html = renderHtmlPage({ title: 'history', verdict: regressions === 0 ? 'PASS' : 'FAIL', markdown, charts });
  return { markdown, html };
}
