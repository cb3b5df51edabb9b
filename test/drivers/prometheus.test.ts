import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, repoRoot } from '../helpers/cli.ts';
import { freePort, startHttpTarget, type RunningTarget } from '../helpers/targets.ts';

/*
 * Debian's prometheus (scripts/test-deps.sh installs it) scrapes a real run against an HTTP target
 * on 127.0.0.1 every second; the series are then read back through Prometheus's HTTP API. The run
 * lasts ~7 s of wall time, then lingers with its final figures until Prometheus has scraped them
 * (phase `done`), when the test ends the linger with SIGTERM: no wait is a guess at how busy the
 * machine is.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-prometheus-'));
const runDir = join(scratch, 'run');
let prometheus: ChildProcess | undefined;
let target: RunningTarget | undefined;
let api = '';
let metricsUrl = '';
/** The run as it ended: its exit, stderr, what the endpoint served while lingering, result.json, the verdict. */
let run: { status: number | null; stderr: string; exposition: string; result: { startedAt: string; requests: { ok: number } }; verdict: string };
/** When Prometheus held the final figures, the target still up: dashboard queries are evaluated then. */
let finalTime = 0;
/** How long the CLI took to exit after SIGTERM, against a 10-minute linger. */
let exitAfterSignalMs = 0;

type Vector = { metric: Record<string, string>; value: [number, string] }[];

async function until<T>(what: string, limitMs: number, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** An instant query's result vector (at `time`, epoch seconds, when given). */
async function query(promql: string, time?: number): Promise<Vector> {
  const at = time === undefined ? '' : `&time=${time}`;
  const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}${at}`);
  const body = (await response.json()) as { status: string; error?: string; data: { result: Vector } };
  expect(body.status, `${promql}: ${body.error}`).toBe('success');
  return body.data.result;
}

beforeAll(async () => {
  const [metricsPort, webPort] = [await freePort(), await freePort()];
  writeFileSync(
    join(scratch, 'prometheus.yml'),
    `global: { scrape_interval: 1s, scrape_timeout: 900ms }\nscrape_configs:\n  - job_name: stampede\n    static_configs: [{ targets: ['127.0.0.1:${metricsPort}'] }]\n`,
  );
  prometheus = spawn(
    'prometheus',
    [`--config.file=${join(scratch, 'prometheus.yml')}`, `--storage.tsdb.path=${join(scratch, 'tsdb')}`, `--web.listen-address=127.0.0.1:${webPort}`],
    { stdio: 'ignore' },
  );
  api = `http://127.0.0.1:${webPort}`;
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  await until('prometheus to be ready', 30_000, async () => ((await fetch(`${api}/-/ready`)).ok ? true : undefined));
  target = await startHttpTarget((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  writeFileSync(
    join(scratch, 'profile.yaml'),
    [
      'name: scraped',
      'seed: 1',
      'warmup: 1s',
      'phases: [{ type: steady, rate: 200, duration: 6s }]',
      // Required by every profile; a real target ignores it.
      'topology: { entry: api, services: { api: { workers: 8, serviceTime: { type: exponential, mean: 1ms } } } }',
      '',
    ].join('\n'),
  );
  const args = ['run', join(scratch, 'profile.yaml'), '--target', target.url, '--out', runDir, '--metrics-port', String(metricsPort), '--metrics-linger', '10m', '--quiet'];
  const cli = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  cli.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => cli.on('close', resolve));
  const killer = setTimeout(() => cli.kill('SIGKILL'), 110_000);
  try {
    const [done] = await until('prometheus to scrape the finished run', 90_000, async () => {
      const vector = await query('last_over_time(stampede_run_phase{phase="done"}[5m]) == 1');
      return vector.length > 0 ? vector : undefined;
    });
    finalTime = done!.value[0];
    const exposition = await (await fetch(metricsUrl)).text();
    const signalledAt = Date.now();
    cli.kill('SIGTERM');
    const status = await exited;
    exitAfterSignalMs = Date.now() - signalledAt;
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'));
    const { verdict } = JSON.parse(readFileSync(join(runDir, 'analysis.json'), 'utf8')) as { verdict: string };
    run = { status, stderr, exposition, result, verdict };
  } finally {
    clearTimeout(killer);
  }
}, 150_000);

afterAll(async () => {
  if (prometheus?.pid !== undefined && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
    process.kill(prometheus.pid, 'SIGTERM');
    await exited;
  }
  await target?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('Prometheus scrapes a live run (real prometheus, real HTTP target on 127.0.0.1)', () => {
  it('SIGTERM during the linger ends it at once, with the run’s own exit code', async () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(['PASS', 'NO SLO'].includes(run.verdict) ? 0 : 1);
    // Against a linger of 10 minutes: the signal ended it, not the clock.
    expect(exitAfterSignalMs).toBeLessThan(60_000);
    await expect(fetch(metricsUrl)).rejects.toThrow();
  });

  it('scraped the run several times while it lasted', async () => {
    const [scrapes] = await query('count_over_time(stampede_requests_sent_total[5m])');
    expect(Number(scrapes!.value[1])).toBeGreaterThanOrEqual(2);
  });

  it('holds the run’s final counts: the last stampede_requests_total{outcome="ok"} is result.json’s requests.ok', async () => {
    const [ok] = await query('last_over_time(stampede_requests_total{outcome="ok"}[5m])');
    expect(Number(ok!.value[1])).toBe(run.result.requests.ok);
    const kinds = await query('last_over_time(stampede_kind_requests_total{outcome="ok"}[5m])');
    expect(kinds.map((s) => s.metric['kind'])).toContain('get');
    expect(kinds.map((s) => Number(s.value[1])).reduce((a, b) => a + b, 0)).toBe(run.result.requests.ok);
  });

  it('stampede_run_info names the profile and the run, and every series carries them', async () => {
    const [info] = await query('last_over_time(stampede_run_info[5m])');
    expect(info!.metric).toMatchObject({ job: 'stampede', profile: 'scraped', run: run.result.startedAt, segment: '0/1', target: target!.url });
    expect(await query('count({__name__=~"stampede_.+", run=""})', finalTime)).toEqual([]);
    expect(await query('count({__name__=~"stampede_.+", profile="scraped"})', finalTime)).not.toEqual([]);
  });

  it('reads back the cumulative latency histogram, in seconds', async () => {
    const [count] = await query('last_over_time(stampede_latency_seconds_count[5m])');
    expect(Number(count!.value[1])).toBeGreaterThan(0);
    const [p99] = await query('histogram_quantile(0.99, sum by (le) (rate(stampede_latency_seconds_bucket[1m])))', finalTime);
    expect(Number(p99!.value[1])).toBeGreaterThan(0);
    expect(Number(p99!.value[1])).toBeLessThan(10);
  });

  it('reads back the generator’s and the transport’s series, with their family', async () => {
    const [lag] = await query('last_over_time(stampede_generator_lag_seconds[5m])');
    expect(lag!.metric['family']).toBe('generator');
    const [cpu] = await query('rate(stampede_generator_cpu_seconds_total[1m])', finalTime);
    expect(Number(cpu!.value[1])).toBeGreaterThan(0);
    const [connections] = await query('max_over_time(stampede_open_connections[5m])');
    expect(Number(connections!.value[1])).toBeGreaterThan(0);
    expect(await query('last_over_time(stampede_in_flight[5m])')).toHaveLength(1);
  });

  it('promtool check metrics finds nothing to say about what the endpoint served', () => {
    const check = spawnSync('promtool', ['check', 'metrics'], { input: run.exposition, encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('every query of docs/grafana-dashboard.json is valid PromQL, and each panel but Dropped draws the run', async () => {
    const dashboard = JSON.parse(readFileSync(join(repoRoot, 'docs/grafana-dashboard.json'), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const values: Record<string, string> = { job: 'stampede', instance: '.*', run: '.*', family: 'generator', counter: 'stampede_connects_total', __rate_interval: '1m' };
    for (const panel of dashboard.panels) {
      let drawn = 0;
      for (const { expr } of panel.targets) {
        const promql = expr.replace(/\$(\w+)/g, (_, name: string) => values[name] ?? `$${name}`);
        drawn += (await query(promql, finalTime)).length;
      }
      // Nothing was dropped: no series of outcome="dropped".
      if (panel.title !== 'Dropped') expect(drawn, panel.title).toBeGreaterThan(0);
    }
  });
});
