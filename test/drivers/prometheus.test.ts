import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, repoRoot } from '../helpers/cli.ts';
import { freePort, startHttpTarget, type RunningTarget } from '../helpers/targets.ts';

/*
 * Debian's prometheus (scripts/test-deps.sh installs it) scrapes a real run against an HTTP target
 * on 127.0.0.1 every second; the series are then read back through Prometheus's HTTP API. The run
 * lasts ~7 s of wall time: long enough for several scrapes however busy the machine.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-prometheus-'));
let prometheus: ChildProcess | undefined;
let target: RunningTarget | undefined;
let api = '';

async function until<T>(what: string, limitMs: number, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** An instant query's result vector: one { metric, value } per series. */
async function query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  expect(body.status).toBe('success');
  return body.data.result;
}

function runCli(args: string[], limitMs: number): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
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
  const run = await runCli(['run', join(scratch, 'profile.yaml'), '--target', target.url, '--out', join(scratch, 'run'), '--metrics-port', String(metricsPort), '--quiet'], 60_000);
  expect(run.stderr).toBe('');
  expect([0, 1]).toContain(run.status);
}, 120_000);

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
  it('scraped the run several times while it lasted', async () => {
    const [scrapes] = await query('count_over_time(stampede_sent_total[5m])');
    expect(Number(scrapes!.value[1])).toBeGreaterThanOrEqual(2);
  });

  it('reads back measured requests by outcome, kind and client', async () => {
    const [ok] = await query('max_over_time(stampede_requests_total{outcome="ok"}[5m])');
    expect(Number(ok!.value[1])).toBeGreaterThan(0);
    const kinds = await query('max_over_time(stampede_kind_requests_total{outcome="ok"}[5m])');
    expect(kinds.map((s) => s.metric['kind'])).toContain('get');
    const clients = await query('max_over_time(stampede_client_requests_total{outcome="ok"}[5m])');
    expect(clients.length).toBeGreaterThan(0);
  });

  it('reads back the cumulative latency histogram and the last interval’s quantiles', async () => {
    const [count] = await query('max_over_time(stampede_latency_seconds_count[5m])');
    expect(Number(count!.value[1])).toBeGreaterThan(0);
    const buckets = await query('max_over_time(stampede_latency_seconds_bucket[5m])');
    expect(buckets.map((s) => s.metric['le'])).toContain('+Inf');
    const p99 = await query('max_over_time(stampede_interval_latency_seconds{quantile="0.99"}[5m])');
    expect(Number(p99[0]!.value[1])).toBeGreaterThan(0);
  });

  it('reads back the generator’s and the transport’s gauges, with their family', async () => {
    const cpu = await query('max_over_time(stampede_gauge_generatorCpu[5m])');
    expect(cpu[0]!.metric['family']).toBe('generator');
    const connections = await query('max_over_time(stampede_gauge_openConnections[5m])');
    expect(Number(connections[0]!.value[1])).toBeGreaterThan(0);
    expect((await query('max_over_time(stampede_gauge_inFlight[5m])')).length).toBe(1);
  });
});
