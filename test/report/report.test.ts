import { describe, expect, it } from 'vitest';
import { analyseRun } from '../../src/analysis/analyse-run.ts';
import { renderHtmlPage, scopeSvgIds } from '../../src/report/html.ts';
import { latencyHeatmapChart } from '../../src/report/charts.ts';
import { markdownToHtml } from '../../src/report/markdown-html.ts';
import { renderRunReport } from '../../src/report/run-report.ts';
import { profileWith, resultWith } from '../analysis/realism/fixtures.ts';
import { defineGauge, gaugeCatalog, intervalMaxOf, SHARED_GAUGES } from '../../src/recorder/gauges.ts';
import { digestOf } from '../../src/recorder/interval-digest.ts';

const profile = profileWith({});

function report(result = resultWith(), judgedProfile = profile) {
  return renderRunReport(result, analyseRun(result, judgedProfile));
}

describe('report.md', () => {
  it('starts with the verdict and its reasons', () => {
    const lines = report().split('\n');
    expect(lines[0]).toBe('# realistic: PASS');
    expect(lines[2]).toMatch(/^- every SLO check held \(p99 ≤ 50ms, error rate ≤ 0\.1%\)/);
  });

  it('says FAIL with each failed check and its measured value', () => {
    const md = report(resultWith(), profileWith({ slo: { latency: [{ percentile: 99, max: '15ms' }], errorRate: 0.001 } }));
    expect(md.split('\n')[0]).toBe('# realistic: FAIL');
    expect(md).toContain('- p99 ≤ 15ms: measured 20ms > 15ms');
  });

  it('says INVALID, not PASS, when a flag is invalid, and names it first', () => {
    const starved = resultWith({ rate: { askedRps: 1000, achievedRps: 400 }, requests: { ...resultWith().requests, sent: 24_000 } });
    const md = report(starved);
    expect(md.split('\n')[0]).toBe('# realistic: INVALID');
    expect(md.split('\n')[2]).toMatch(/^- the load generator was the limit \(achieved 400 of 1,000 rps asked\)/);
    expect(md).toMatch(/\| \*\*INVALID\*\* \| generator-bottleneck \|/);
  });

  it('has the latency table per kind and per client when there are several', () => {
    const r = resultWith();
    const twoClients = resultWith({
      byClient: { web: r.byClient.default!, 'new-internal-service': { ...r.byClient.default!, requests: 75, failed: 74 } },
      byKind: { get: r.byKind.get!, set: r.byKind.get! },
    });
    const md = report(twoClients);
    expect(md).toMatch(/\| client new-internal-service \|\s+75 \|\s+74 \|/);
    expect(md).toMatch(/\| kind set /);
  });
});

describe('report.md: gauges', () => {
  const THREADS = defineGauge('threads', 'count', 'process', 'at the sample');
  const THREADS_MAX = intervalMaxOf(THREADS, defineGauge('threadsMax', 'count', 'process', 'at any moment of the interval'));

  it('shows a gauge’s per-interval maximum beside its samples’, not on a row of its own', () => {
    // 1 s samples that never see the thread burst each interval's maximum caught.
    const intervals = Array.from({ length: 20 }, (_, i) => ({
      ...resultWith().intervals.series[0]!,
      tMs: i * 1000,
      gauges: { 'threads.svc': 40, 'threadsMax.svc': i === 12 ? 45 : 40, inFlight: 3 },
    }));
    const md = report(resultWith({ intervals: digestOf(intervals, 1000), gauges: gaugeCatalog([THREADS, THREADS_MAX, SHARED_GAUGES.inFlight]) }));
    expect(md).toMatch(/\| gauge +\| +min \| +max sampled \| +max at any moment \| +last \|/);
    expect(md).toMatch(/\| threads\.svc +\| +40 \| +40 \| +45 \| +40 \|/);
    expect(md).toMatch(/\| inFlight +\| +3 \| +3 \| +– \| +3 \|/);
    expect(md).not.toMatch(/\| threadsMax\.svc/);
  });
});

describe('report.html', () => {
  it('is one self-contained page: the same text, inline SVG charts, no scripts or external resources', () => {
    const md = report();
    const html = renderHtmlPage({
      title: 'realistic',
      verdict: 'PASS',
      markdown: md,
      charts: [
        {
          title: 'c',
          option: {
            xAxis: { type: 'value' },
            yAxis: { type: 'value' },
            series: [
              {
                type: 'line',
                data: [
                  [0, 1],
                  [1, 2],
                ],
              },
            ],
          },
        },
      ],
      chartsAfter: 'Realism flags',
    });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src="http|url\(http/);
    expect(html).toContain('<svg');
    expect(html.indexOf('<h2>Realism flags</h2>')).toBeLessThan(html.indexOf('<h2>Charts</h2>'));
    expect(html.indexOf('<h2>Charts</h2>')).toBeLessThan(html.indexOf('<h2>Latency by kind'));
    expect(html).toContain('every SLO check held');
  });

  it('renders the same bytes twice (zrender ids are renumbered per chart)', () => {
    const page = () =>
      renderHtmlPage({
        title: 't',
        verdict: 'PASS',
        markdown: '# t\n',
        charts: [
          {
            title: 'c',
            option: {
              xAxis: { type: 'value' },
              yAxis: { type: 'value' },
              series: [
                {
                  type: 'line',
                  data: [
                    [0, 1],
                    [1, 2],
                  ],
                },
              ],
            },
          },
        ],
      });
    expect(page()).toBe(page());
    expect(scopeSvgIds('<g class="zr12-cls-7"></g><clipPath id="zr12-c3"/><use href="url(#zr12-c3)"/>', 2)).toBe(
      '<g class="c2-0"></g><clipPath id="c2-1"/><use href="url(#c2-1)"/>',
    );
  });

  it('converts the reports’ Markdown: headings, lists, tables with right-aligned numbers, line breaks, code blocks, and escapes raw HTML', () => {
    const html = markdownToHtml('# T <x>\n\n- **bold** `code`\n\n| a | n |\n|---|--:|\n| x \\| y | 3 |\n\nline one\nline two\n\n```\nout <script>alert(1)</script>\n```\n');
    expect(html).toContain('<h1>T &lt;x&gt;</h1>');
    expect(html).toContain('<li><strong>bold</strong> <code>code</code></li>');
    expect(html).toContain('<td>x | y</td>\n<td style="text-align:right">3</td>');
    expect(html).toContain('<p>line one<br>\nline two</p>');
    // A command's output (a timeline exec) is a code block, and never markup.
    expect(html).toContain('<pre><code>out &lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>');
    expect(html).not.toContain('<script>');
  });
});

describe('latency heatmap', () => {
  it('merges neighbouring intervals of a long run into at most the column limit, keeping every count', () => {
    const intervals = Array.from({ length: 1000 }, (_, i) => ({
      tMs: i * 1000,
      counts: [
        [1000 + (i % 7), 3],
        [50_000, 1],
      ] as [number, number][],
    }));
    const option = latencyHeatmapChart(intervals, 16, 240) as { xAxis: { data: string[] }; series: { data: [number, number, number][] }[] };
    expect(option.xAxis.data.length).toBeLessThanOrEqual(240);
    expect(option.xAxis.data[0]).toBe('0');
    // Cell values are log10(count + 1); summing the counts back gives every request.
    const total = option.series[0]!.data.reduce((sum, [, , level]) => sum + Math.round(10 ** level - 1), 0);
    expect(total).toBe(4000);
  });
});
