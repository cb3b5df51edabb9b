import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProfile } from '../../src/pipeline/run.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { capacityChart, percentileSpectrumChart } from '../../src/report/charts.ts';
import { renderHtmlPage } from '../../src/report/html.ts';
import { runCharts } from '../../src/report/run-charts.ts';
import { makeProfile } from '../helpers/profile.ts';
import { hasChromium, visit } from './chromium.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-browser-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Counts the rendered charts and those that drew data: a series line is a path of many segments
 * (an axis or a legend icon is a handful of characters); a heatmap is many cell paths.
 */
const COUNT_CHARTS = `(() => {
  const svgs = [...document.querySelectorAll('figure svg')];
  const drew = (s) => { const d = [...s.querySelectorAll('path')].map((p) => (p.getAttribute('d') || '').length); return d.some((n) => n > 40) || d.filter((n) => n > 20).length >= 50; };
  return {
    charts: svgs.length,
    drawn: svgs.filter(drew).length,
    widths: svgs.map((s) => Math.round(s.getBoundingClientRect().width)),
    scripts: document.querySelectorAll('script').length,
    title: document.querySelector('h1')?.textContent,
  };
})()`;

/**
 * Every text of every chart, as the browser lays it out: its box against its SVG's box, and which
 * texts are legend pagers ("1/3"). `names` maps a chart's title to its series' names: each must be
 * a text of its chart, inside it, and no two of them may overlap.
 */
const CHECK_TEXTS = (names: Record<string, string[]>) => `(() => {
  const names = ${JSON.stringify(names)};
  const inside = (r, box) => r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  return [...document.querySelectorAll('figure')].map((figure) => {
    const svg = figure.querySelector('svg');
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].map((t) => ({ text: t.textContent, rect: t.getBoundingClientRect() }));
    const title = figure.getAttribute('aria-label');
    const wanted = names[title] || [];
    const legend = wanted.map((name) => texts.find((t) => t.text === name));
    const shown = legend.filter(Boolean);
    return {
      title,
      clipped: texts.filter((t) => t.text && !inside(t.rect, box)).map((t) => t.text),
      pagers: texts.filter((t) => /^\\d+\\/\\d+$/.test(t.text)).map((t) => t.text),
      missing: wanted.filter((_, i) => !legend[i]),
      overlapping: shown.flatMap((a, i) => shown.slice(i + 1).filter((b) => overlap(a.rect, b.rect)).map((b) => a.text + ' / ' + b.text)),
    };
  });
})()`;

/** The series names of each chart of a run, by title, as the legend must show them. */
function seriesNames(result: RunResult): Record<string, string[]> {
  return Object.fromEntries(
    runCharts(result, undefined).map((c) => [
      c.title,
      ((c.option.series as { name: string; type: string }[]) ?? []).filter((x) => x.name !== 'events' && x.type !== 'heatmap').map((x) => x.name),
    ]),
  );
}

/** The page as a reader sees it, kept for a look when STAMPEDE_SCREENSHOTS names a folder (the assertions read the DOM). */
function keepScreenshot(name: string, png: Buffer): void {
  const folder = process.env.STAMPEDE_SCREENSHOTS;
  if (folder) writeFileSync(join(folder, name), png);
}

interface TextCheck {
  title: string;
  clipped: string[];
  pagers: string[];
  missing: string[];
  overlapping: string[];
}

/** The charts whose texts are not all readable: clipped, paged, missing or on top of each other. */
function unreadable(checks: TextCheck[]): TextCheck[] {
  return checks.filter((c) => c.clipped.length + c.pagers.length + c.missing.length + c.overlapping.length > 0);
}

describe.runIf(hasChromium())('report.html in headless Chromium', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    // The model with its gauges: a cache topology, so connections and hit ratio are charted too.
    const profile = makeProfile({
      name: 'browser-check',
      warmup: '1s',
      phases: [{ type: 'steady', rate: 3000, duration: '4s' }],
      keys: { count: 10_000, popularity: { type: 'zipf', s: 0.99 } },
      slo: { latency: [{ percentile: 99, max: '50ms' }], errorRate: 0.01 },
      topology: {
        entry: 'api',
        clientGroups: { mc: { instances: 2, pool: { maxOpen: 4, maxIdle: 4 } } },
        services: { api: { workers: 32, serviceTime: '200us', calls: [{ to: 'cache', via: 'mc', perItem: true }] } },
        caches: { cache: { shards: 4, capacity: 2000 } },
      },
    });
    dir = (await runProfile(profile, { outDir: join(scratch, 'run') })).dir;
  }, 120_000);

  it('a run report loads without console errors or network, and every chart renders as SVG', async () => {
    const page = await visit(pathToFileURL(join(dir, 'report.html')).href, { evaluate: COUNT_CHARTS });
    expect(page.errors).toEqual([]);
    expect(page.requests.every((u) => u.startsWith('file:') || u.startsWith('data:'))).toBe(true);
    const value = page.value as { charts: number; drawn: number; widths: number[]; scripts: number; title: string };
    expect(value.title).toMatch(/^browser-check (PASS|FAIL|INVALID)/);
    // throughput, latency over time, heatmap, spectrum, and at least connections and hit ratio.
    expect(value.charts).toBeGreaterThanOrEqual(6);
    expect(value.drawn).toBe(value.charts);
    expect(value.widths.every((w) => w > 300)).toBe(true);
    expect(value.scripts).toBe(0);
  });

  it('every series is named in a legend in view, no pager hides any, and no axis name or label is clipped', async () => {
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
    const names = seriesNames(result);
    // The gauge charts carry the most series: the case the scroll legend's pager hid.
    expect(Math.max(...Object.values(names).map((n) => n.length))).toBeGreaterThanOrEqual(8);
    const page = await visit(pathToFileURL(join(dir, 'report.html')).href, { evaluate: CHECK_TEXTS(names), screenshot: { width: 1100 } });
    keepScreenshot('run.png', page.screenshot!);
    const checks = page.value as TextCheck[];
    expect(checks.map((c) => c.title)).toContain('Percentile spectrum');
    expect(unreadable(checks)).toEqual([]);
  });

  it('a failover’s recovery table sits beside the charts of its events, before the other charts', async () => {
    const profile = makeProfile({
      name: 'browser-failover',
      warmup: '1s',
      phases: [{ type: 'steady', rate: 2000, duration: '5s' }],
      keys: { count: 200, prefix: 'user:' },
      slo: { latency: [{ percentile: 99, max: '2s' }], errorRate: 0.05 },
      topology: {
        entry: 'api',
        services: { api: { workers: 8, serviceTime: { type: 'exponential', mean: '1ms' }, calls: [{ to: 'cache', via: 'api-to-cache' }] } },
        clientGroups: { 'api-to-cache': { instances: 1 } },
        caches: { cache: { shards: 4, workers: 4, serviceTime: { type: 'exponential', mean: '100us' } } },
        timeline: [{ type: 'removeShards', at: '3s', cache: 'cache', count: 1 }],
      },
    } as never);
    const failover = (await runProfile(profile, { outDir: join(scratch, 'failover') })).dir;
    const ORDER = `(() => {
      const order = [...document.querySelectorAll('h2, table, figure')].map((e) => e.tagName === 'FIGURE' ? 'figure:' + e.getAttribute('aria-label') : e.tagName === 'H2' ? 'h2:' + e.textContent : 'table:' + e.querySelector('th').textContent);
      const table = [...document.querySelectorAll('table')].find((t) => t.querySelector('th')?.textContent === 'planned');
      const chart = document.querySelector('figure[aria-label="Throughput"]');
      const a = table.getBoundingClientRect();
      const b = chart.getBoundingClientRect();
      return { order, gap: Math.round(b.top - a.bottom) };
    })()`;
    const page = await visit(pathToFileURL(join(failover, 'report.html')).href, { evaluate: ORDER, screenshot: { width: 1100, maxHeight: 2400 } });
    keepScreenshot('failover.png', page.screenshot!);
    expect(page.errors).toEqual([]);
    const { order, gap } = page.value as { order: string[]; gap: number };
    const at = (item: string) => order.indexOf(item);
    // The event table (its first column "planned"), then at once the charts with the events marked.
    expect(at('h2:Timeline')).toBeGreaterThan(at('h2:Realism flags'));
    expect(order.slice(at('table:planned'), at('table:planned') + 3)).toEqual(['table:planned', 'figure:Throughput', 'figure:Latency over time']);
    expect(at('figure:Throughput')).toBeLessThan(at('h2:Charts'));
    expect(gap).toBeLessThan(40);
    const result = JSON.parse(readFileSync(join(failover, 'result.json'), 'utf8')) as RunResult;
    const texts = await visit(pathToFileURL(join(failover, 'report.html')).href, { evaluate: CHECK_TEXTS(seriesNames(result)) });
    expect(unreadable(texts.value as TextCheck[])).toEqual([]);
  });

  it('the spectrum’s axis name lies inside the chart', async () => {
    const points = [50, 90, 99, 99.9, 99.99].map((percentile, i) => ({ percentile, valueUs: 1000 * (i + 1) }));
    const html = renderHtmlPage({
      title: 's',
      verdict: 'PASS',
      markdown: '# s\n',
      charts: [{ title: 'Percentile spectrum', option: percentileSpectrumChart([{ name: 'all requests', points }]) }],
    });
    const file = join(scratch, 'spectrum.html');
    writeFileSync(file, html);
    const page = await visit(pathToFileURL(file).href, { evaluate: CHECK_TEXTS({ 'Percentile spectrum': ['all requests'] }) });
    const [check] = page.value as TextCheck[];
    expect(check).toMatchObject({ clipped: [], missing: [], pagers: [] });
  });

  it('a qualification page with its capacity curve renders too', async () => {
    const steps = [1000, 2000, 3000].map((askedRps, i) => ({ askedRps, pass: i < 2, latencyUs: { p50: 1000 * (i + 1), p99: 5000 * (i + 1) ** 3, p999: 9000 * (i + 1) ** 3 } }));
    const html = renderHtmlPage({
      title: 'q',
      verdict: 'FAIL',
      markdown: '# q\n\n- capacity 2000 rps\n\n## Steps\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n',
      charts: [{ title: 'Capacity curve', option: capacityChart({ steps, peakRps: 1500, failoverRps: 3000, capacityRps: 2000, sloP99Us: 50_000 }) }],
    });
    const file = join(scratch, 'q.html');
    writeFileSync(file, html);
    const page = await visit(pathToFileURL(file).href, { evaluate: COUNT_CHARTS });
    expect(page.errors).toEqual([]);
    expect(page.value).toMatchObject({ charts: 1, drawn: 1 });
    const texts = await visit(pathToFileURL(file).href, { evaluate: CHECK_TEXTS({ 'Capacity curve': ['p50', 'p99', 'p99.9'] }) });
    expect(unreadable(texts.value as TextCheck[])).toEqual([]);
  });
});
