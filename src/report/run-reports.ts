import type { RunAnalysis } from '../analysis/analyse-run.ts';
import type { LoggedInterval } from '../recorder/latency-log.ts';
import type { RunResult } from '../recorder/result.ts';
import { renderHtmlPage } from './html.ts';
import { runCharts } from './run-charts.ts';
import { renderRunReport } from './run-report.ts';
import { TIMELINE_SECTION } from './timeline.ts';

export { HEATMAP_COLUMNS } from './charts.ts';

export interface RunReportInput {
  result: RunResult;
  analysis: RunAnalysis;
  latencyLog?: readonly LoggedInterval[] | undefined;
}

/** report.md and report.html of one run: renderings of what was measured and what was judged. Pure. */
export function renderRunReports({ result, analysis, latencyLog }: RunReportInput): { markdown: string; html: string } {
  const markdown = renderRunReport(result, analysis);
  // The timeline's section holds the charts of its events; the other charts follow it.
  const chartsAfter = (result.timeline ?? []).length > 0 ? TIMELINE_SECTION : 'Realism flags';
  const html = renderHtmlPage({ title: result.profile.name, verdict: analysis.verdict, markdown, charts: runCharts(result, latencyLog), chartsAfter });
  return { markdown, html };
}
