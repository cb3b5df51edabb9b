import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProfile } from '../../src/pipeline/run.ts';
import { capacityChart } from '../../src/report/charts.ts';
import { renderHtmlPage } from '../../src/report/html.ts';
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
  });
});
