import { formatShare, formatUs } from '../analysis/format.ts';
import type { History, HistoryEntry, ProfileHistory } from '../analysis/history.ts';
import { trendChart } from './charts.ts';
import { renderHtmlPage, type HtmlChart } from './html.ts';
import { markdownTable } from './table.ts';

/** The trend of a folder of runs (one a night), one section per profile: Markdown tables and charts of capacity and p99. */
export function renderHistory(history: History): { markdown: string; html: string } {
  const single = history.profiles.length === 1;
  const interrupted = history.profiles.reduce((n, p) => n + p.entries.filter((e) => e.snapshot.interrupted).length, 0);
  const verdict =
    history.regressions.length === 0
      ? '- no run regressed against the previous run of its profile'
      : `- **${history.regressions.length} run(s) regressed** against the previous run of their profile: ${history.regressions.join('; ')}`;
  const markdown = [
    `# history: ${history.runs} runs of ${history.profiles.length} profile${single ? '' : 's'}`,
    '',
    `${verdict} (as \`stampede compare\` judges: capacity brackets, 99% confidence intervals of p50/p99/p99.9 from the histograms, error rate)`,
    ...(interrupted > 0 ? [`- ${interrupted} run(s) interrupted: partial figures, left out of the trend and the charts`] : []),
    '',
    ...history.profiles.flatMap((p) => [`## ${p.profileName}`, '', trendTable(p), '']),
  ].join('\n');
  const charts = history.profiles.flatMap((p) => trendCharts(p, single ? '' : `${p.profileName}: `));
  const html = renderHtmlPage({ title: 'history', verdict: history.regressions.length === 0 ? 'PASS' : 'FAIL', markdown, charts });
  return { markdown, html };
}

function trendTable(p: ProfileHistory): string {
  const rows = p.entries.map(({ snapshot: s, vsPrevious }) => [
    s.label,
    s.interrupted ? `${s.verdict} (**interrupted**)` : s.verdict,
    s.capacityRps !== undefined ? `${Math.round(s.capacityRps)}` : '–',
    s.p99Us !== undefined ? formatUs(s.p99Us) : '–',
    formatShare(s.requests.total > 0 ? s.requests.failed / s.requests.total : 0),
    s.interrupted ? 'interrupted: partial, not compared' : trendText(vsPrevious),
  ]);
  return markdownTable(['run', 'verdict', 'capacity rps', 'p99', 'error rate', 'vs previous'], rows, ['l', 'l', 'r', 'r', 'r', 'l']);
}

function trendText(c: HistoryEntry['vsPrevious']): string {
  if (!c) return '';
  const of = (change: string) => c.rows.filter((r) => r.change === change).map((r) => r.metric);
  if (c.regressed) return `**REGRESSED: ${of('regressed').join(', ')}**`;
  const improved = of('improved');
  return improved.length > 0 ? `improved: ${improved.join(', ')}` : 'same';
}

function trendCharts(p: ProfileHistory, prefix: string): HtmlChart[] {
  // An interrupted run's partial figures are no point on a trend.
  const runs = p.entries.map((e) => e.snapshot).filter((s) => !s.interrupted);
  const labels = runs.map((s) => s.label);
  const charts: HtmlChart[] = [];
  if (runs.some((s) => s.capacityRps !== undefined)) {
    const title = `${prefix}Capacity per night`;
    charts.push({ title, option: trendChart(title, 'req/s', labels, [{ name: 'capacity', values: runs.map((s) => s.capacityRps ?? null) }]) });
  }
  const title = `${prefix}p99 per night`;
  charts.push({ title, option: trendChart(title, 'ms', labels, [{ name: 'p99', values: runs.map((s) => (s.p99Us !== undefined ? s.p99Us / 1000 : null)) }], true) });
  return charts;
}
