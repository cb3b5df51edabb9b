import { bracketText } from '../analysis/compare.ts';
import { formatShare, formatUs } from '../analysis/format.ts';
import type { History, HistoryEntry, LatestNight, ProfileHistory } from '../analysis/history.ts';
import { trendChart } from './charts.ts';
import { renderHtmlPage, type HtmlChart } from './html.ts';
import { markdownTable } from './table.ts';

/**
 * The trend of a folder of runs (one a night), one section per profile: Markdown tables and charts
 * of capacity and p99. The badge is the latest night's verdict, with its regressions beside it.
 */
export function renderHistory(history: History): { markdown: string; html: string } {
  const single = history.profiles.length === 1;
  const notComparable = history.profiles.reduce((n, p) => n + p.entries.filter((e) => e.snapshot.notComparable.length > 0).length, 0);
  const regressions =
    history.regressions.length === 0
      ? '- no run regressed against the previous comparable run of its profile'
      : `- **${history.regressions.length} run(s) regressed** against the previous comparable run of their profile: ${history.regressions.join('; ')}`;
  const markdown = [
    `# history: ${history.runs} runs of ${history.profiles.length} profile${single ? '' : 's'}`,
    '',
    ...history.latest.map(latestLine),
    `${regressions} (as \`stampede compare\` judges: capacity brackets; latency beyond its sampling interval and the run-to-run noise, a qualification's at its expected peak; error rate)`,
    ...(notComparable > 0 ? [`- ${notComparable} run(s) not comparable (INVALID or interrupted): compared with nothing, left out of the charts`] : []),
    '',
    ...history.profiles.flatMap((p) => [`## ${p.profileName}`, '', trendTable(p), '']),
  ].join('\n');
  const charts = history.profiles.flatMap((p) => trendCharts(p, single ? '' : `${p.profileName}: `));
  const regressed = [...new Set(history.latest.flatMap((l) => l.regressed))];
  const html = renderHtmlPage({
    title: 'history',
    verdict: history.verdict,
    ...(regressed.length > 0 && { beside: `REGRESSED: ${regressed.join(', ')}` }),
    markdown,
    charts,
  });
  return { markdown, html };
}

function latestLine(l: LatestNight): string {
  const against = l.notComparable ? ', not comparable' : l.regressed.length > 0 ? `, **REGRESSED: ${l.regressed.join(', ')}**` : '';
  return `- latest night of ${l.profileName}: \`${l.label}\`, **${l.verdict}**${against}`;
}

function trendTable(p: ProfileHistory): string {
  const rows = p.entries.map(({ snapshot: s, vsPrevious }) => [
    s.label,
    s.interrupted ? `${s.verdict} (**interrupted**)` : s.verdict,
    s.capacity ? bracketText(s.capacity) : '–',
    s.p99Us === undefined ? '–' : `${formatUs(s.p99Us)}${s.p99AtRps !== undefined ? ` at ${Math.round(s.p99AtRps)} rps` : ''}`,
    s.errorRate === undefined ? '–' : formatShare(s.errorRate),
    s.notComparable.length > 0 ? `not comparable: ${s.notComparable.join('; ')}` : trendText(vsPrevious),
  ]);
  return markdownTable(['run', 'verdict', 'capacity', 'p99', 'error rate', 'vs previous'], rows, ['l', 'l', 'r', 'r', 'r', 'l']);
}

function trendText(c: HistoryEntry['vsPrevious']): string {
  if (!c) return '';
  const of = (change: string) => c.rows.filter((r) => r.change === change).map((r) => r.metric);
  if (c.regressed) return `**REGRESSED: ${of('regressed').join(', ')}** (vs ${c.baseline.label})`;
  const improved = of('improved');
  return improved.length > 0 ? `improved: ${improved.join(', ')}` : 'same';
}

function trendCharts(p: ProfileHistory, prefix: string): HtmlChart[] {
  // A night whose figures are no evidence is no point on a trend.
  const runs = p.entries.map((e) => e.snapshot).filter((s) => s.notComparable.length === 0);
  const labels = runs.map((s) => s.label);
  const charts: HtmlChart[] = [];
  if (runs.some((s) => s.capacity)) {
    const title = `${prefix}Capacity per night`;
    charts.push({ title, option: trendChart(title, 'req/s', labels, [{ name: 'capacity', values: runs.map((s) => s.capacityRps ?? null) }]) });
  }
  const peak = runs.find((s) => s.p99AtRps !== undefined)?.p99AtRps;
  const title = `${prefix}p99 per night${peak !== undefined ? ` at ${Math.round(peak)} rps` : ''}`;
  charts.push({ title, option: trendChart(title, 'ms', labels, [{ name: 'p99', values: runs.map((s) => (s.p99Us !== undefined ? s.p99Us / 1000 : null)) }], true) });
  return charts;
}
