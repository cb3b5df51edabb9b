import { renderChartSvg, type ChartOption } from './charts.ts';
import { escapeHtml, markdownToHtml } from './markdown-html.ts';

export interface HtmlChart {
  title: string;
  option: ChartOption;
  /** The `## ` section the chart belongs in, beside its first table; absent: with the other charts. */
  section?: string | undefined;
  width?: number;
  height?: number;
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;max-width:1010px;margin:24px auto;padding:0 16px}
h1{font-size:24px;margin:0 0 8px}h1 .verdict{padding:2px 10px;border-radius:6px;color:#fff}
.PASS{background:#29a36a}.FAIL,.DIVERGED,.REGRESSED{background:#d64541}.INVALID{background:#8e44ad}.NO-SLO,.unknown{background:#7f8c8d}
h2{font-size:18px;border-bottom:1px solid #dde2ea;padding-bottom:4px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #dde2ea;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f9}td[style*=right],th[style*=right]{font-variant-numeric:tabular-nums}pre{background:#f3f5f9;padding:6px 8px;border-radius:4px;overflow-x:auto}
code{background:#f3f5f9;padding:0 3px;border-radius:3px}figure{margin:12px 0}figure svg{max-width:100%;height:auto;border:1px solid #eef1f5;border-radius:6px}
footer{margin-top:32px;color:#7a8394;font-size:12px}`;

/**
 * One self-contained HTML page: the report's Markdown as HTML with the charts as inline SVG
 * (rendered here, so the page needs no script and no network). Charts go after the section
 * headed `chartsAfter` (default: the verdict), before the details; a chart with a `section` goes
 * inside that section instead, right after its first table (a failover's recovery table beside the
 * charts of its events). `beside` is a second badge beside the verdict (history: what the latest
 * night regressed).
 */
export function renderHtmlPage(input: { title: string; verdict: string; beside?: string; markdown: string; charts: readonly HtmlChart[]; chartsAfter?: string }): string {
  const sections = input.markdown.replace(/^# .*$/m, '').split(/\n(?=## )/);
  const after =
    input.chartsAfter === undefined
      ? 0
      : Math.max(
          0,
          sections.findIndex((s) => s.startsWith(`## ${input.chartsAfter}`)),
        );
  const figures = input.charts.map((c, k) => ({
    section: c.section,
    html: `<figure aria-label="${escapeHtml(c.title)}">${scopeSvgIds(renderChartSvg(c.option, c.width, c.height), k)}</figure>`,
  }));
  const free = figures.filter((f) => f.section === undefined).map((f) => f.html);
  const sectionHtml = (section: string) => {
    const placed = figures.filter((f) => f.section !== undefined && section.startsWith(`## ${f.section}\n`)).map((f) => f.html);
    return placed.length === 0 ? markdownToHtml(section) : withFiguresAfterFirstTable(section, placed);
  };
  const verdictClass = input.verdict.replace(/\s+/g, '-');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}: ${escapeHtml(input.verdict)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(input.title)} <span class="verdict ${verdictClass}">${escapeHtml(input.verdict)}</span>${input.beside ? ` <span class="verdict REGRESSED">${escapeHtml(input.beside)}</span>` : ''}</h1>
${sections
  .slice(0, after + 1)
  .map(sectionHtml)
  .join('\n')}
${free.length > 0 ? `<h2>Charts</h2>\n${free.join('\n')}` : ''}
${sections
  .slice(after + 1)
  .map(sectionHtml)
  .join('\n')}
<footer>stampede report · charts rendered with Apache ECharts (server-side SVG) · works offline</footer>
</body>
</html>
`;
}

/** A section's HTML with figures after its first table (at its end when it has none). */
function withFiguresAfterFirstTable(section: string, figures: readonly string[]): string {
  const lines = section.split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  let end = first < 0 ? lines.length : first;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  return [markdownToHtml(lines.slice(0, end).join('\n')), ...figures, markdownToHtml(lines.slice(end).join('\n'))].join('\n');
}

/**
 * zrender names classes and clip paths from process-wide counters ("zr8-cls-379"), so the same chart
 * renders differently the second time and two inline SVGs could share a name. Renumber them per
 * chart, in order of appearance: deterministic bytes, unique within the page.
 */
export function scopeSvgIds(svg: string, chart: number): string {
  const names = new Map<string, string>();
  return svg.replace(/\bzr\d+-[A-Za-z]*-?\d+\b/g, (token) => {
    let name = names.get(token);
    if (name === undefined) names.set(token, (name = `c${chart}-${names.size}`));
    return name;
  });
}
