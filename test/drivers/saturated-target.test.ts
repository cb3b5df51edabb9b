import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stampedeAsync } from '../helpers/cli.ts';
import { startHttpTarget, type RunningTarget } from '../helpers/targets.ts';

/*
 * A server with a fixed number of workers and a fixed service time, driven above its capacity
 * through the real CLI. Truth: 4 workers × 10 ms = 400 req/s at most (less when the machine is busy
 * and its timers slip); asked: 800 req/s through 32 connections. The pool fills, requests wait for
 * a connection, and the run must FAIL naming the target's saturation — not call the generator the
 * limit, which it was not.
 */

const WORKERS = 4;
const SERVICE_MS = 10;

/** Answers with WORKERS requests in service at once, each for SERVICE_MS; the rest wait in FIFO order. */
async function startFixedWorkers(): Promise<RunningTarget & { served: () => number }> {
  const waiting: (() => void)[] = [];
  let busy = 0;
  let served = 0;
  const startNext = () => {
    while (busy < WORKERS && waiting.length > 0) {
      busy++;
      const answer = waiting.shift()!;
      setTimeout(() => {
        busy--;
        served++;
        answer();
        startNext();
      }, SERVICE_MS);
    }
  };
  const target = await startHttpTarget((req, res) => {
    req.resume();
    req.on('end', () => {
      waiting.push(() => res.end('ok'));
      startNext();
    });
  });
  return { ...target, served: () => served };
}

const scratch = mkdtempSync(join(tmpdir(), 'stampede-saturated-'));
let target: Awaited<ReturnType<typeof startFixedWorkers>>;

beforeAll(async () => {
  target = await startFixedWorkers();
});
afterAll(async () => {
  await target?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a target driven above its capacity', () => {
  it('FAILs naming the target’s saturation at the test’s concurrency, not the generator', async () => {
    const profile = join(scratch, 'above-capacity.yaml');
    writeFileSync(
      profile,
      [
        'name: above-capacity',
        `target: ${target.url}`,
        'seed: 3',
        'warmup: 1s',
        'arrivals: constant',
        'phases:',
        '  - { type: steady, rate: 800, duration: 4s }',
        'http: { connections: 32, timeout: 3s }',
        'slo:',
        '  latency:',
        '    - { percentile: 99, max: 100ms }',
        '  errorRate: 0.001',
        '',
      ].join('\n'),
    );
    const out = join(scratch, 'run');
    const run = await stampedeAsync(['run', profile, '--out', out], 90_000);
    const analysis = JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8'));
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(analysis.generator.saturated).toBe(false);
    expect(analysis.verdict).toBe('FAIL');
    expect(run.status).toBe(1);
    expect(analysis.flags.map((f: { id: string }) => f.id)).not.toContain('generator-bottleneck');
    // The pool: 32 connections × pipelining 1, all busy; the target answered no more than its 400 req/s.
    expect(analysis.saturation.slots).toBe(32);
    expect(analysis.saturation.answeredRps).toBeLessThanOrEqual(WORKERS * (1000 / SERVICE_MS) * 1.05);
    expect(result.generator.waitedForConnection).toBeGreaterThan(0);
    // The terminal, summary.md and analysis.json say the same thing.
    expect(analysis.reasons.at(-1)).toMatch(/^the target saturated at this concurrency: [\d,]+ requests waited for a free connection \(connections × pipelining = 32, all busy/);
    expect(run.stdout).toMatch(/^FAIL: .*the target saturated at this concurrency/m);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('The target saturated at this concurrency');
    expect(target.served()).toBeGreaterThan(0);
  });
});
