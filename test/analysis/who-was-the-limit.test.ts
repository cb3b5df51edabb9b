import { describe, expect, it } from 'vitest';
import { analyseRun } from '../../src/analysis/analyse-run.ts';
import type { GeneratorFigures } from '../../src/recorder/driver-report.ts';
import { digestOf } from '../../src/recorder/interval-digest.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { encodedLatency, HEALTHY_GENERATOR, profileWith, resultWith } from './realism/fixtures.ts';

/*
 * Every row of docs/who-was-the-limit.md. The run: 1,000 rps asked of an HTTP target through 8
 * connections at pipelining 1 for 60 s; the SLO is p99 ≤ 50 ms and error rate ≤ 0.1%.
 */

const TARGET = 'http://127.0.0.1:8080';
const HTTP = { protocol: 'http' as const, connections: 8, pipelining: 1, connects: 8, statusCodes: { '200': 60_000 }, protocolErrors: 0 };
/** Requests queued behind 8 busy connections: 40,000 waited, for up to 9 s (send lateness p99). */
const WAITED: Partial<GeneratorFigures> = { waitedForConnection: 40_000, sendLatenessUs: { mean: 4_000_000, p50: 3_000_000, p99: 9_000_000, max: 9_500_000 } };
/** Requests queued briefly behind the busy connections: 5,000 waited, up to 30 ms (p99), inside a 40 ms latency p99. */
const WAITED_BRIEFLY: Partial<GeneratorFigures> = { waitedForConnection: 5_000, sendLatenessUs: { mean: 3_000, p50: 1_000, p99: 30_000, max: 45_000 } };
const SHORT_WAITS: Partial<GeneratorFigures> = { waitedForConnection: 300, sendLatenessUs: { mean: 200, p50: 100, p99: 2_000, max: 8_000 } };
const OVER: Record<string, Partial<GeneratorFigures>> = {
  'event-loop lag': { eventLoopLagMs: { mean: 30, p99: 80, max: 120 } },
  CPU: { cpu: 0.97 },
  'dispatch lateness': { dispatchLatenessUs: { mean: 9000, p50: 5000, p99: 40_000, max: 90_000 } },
  'drops at the in-flight cap': { dropped: 120 },
};

/**
 * Broken: the target answered 400 rps, 20 ms each on the wire, so 8 connections were all it had,
 * and requests queued for up to 9 s (latency p99 from the intended time). Held: p99 40 ms, of which
 * up to 30 ms was the wait (mean latency − mean service time ≥ the mean wait: no lateness lost).
 */
function run(generator: Partial<GeneratorFigures>, slo: 'held' | 'broken'): RunResult {
  const p99 = slo === 'held' ? 40_000 : 9_000_000;
  return resultWith({
    target: TARGET,
    generator: { ...HEALTHY_GENERATOR, ...generator },
    driver: { loop: 'open', transport: HTTP },
    latencyUs: { count: 60_000, mean: p99 / 4, p50: p99 / 4, p90: p99 / 2, p99, p999: p99 * 1.05, max: p99 * 1.1 },
    histograms: { ...resultWith().histograms, latency: encodedLatency(p99 / 4, p99) },
    requests: { ...resultWith().requests, ok: 24_000, failed: 0 },
    intervals: digestOf(
      Array.from({ length: 70 }, (_, i) => ({
        tMs: i * 1000,
        warmup: i < 10,
        sent: 1000,
        ok: 400,
        failed: 0,
        dropped: 0,
        goodputRps: 400,
        latencyUs: { p50: p99 / 4, p99, max: p99 },
        gauges: {},
      })),
      1000,
    ),
    serviceTimeUs:
      slo === 'held'
        ? { count: 24_000, mean: 4_000, p50: 4_000, p90: 6_000, p99: 9_000, p999: 12_000, max: 15_000 }
        : { count: 24_000, mean: 20_000, p50: 19_000, p90: 21_000, p99: 24_000, p999: 30_000, max: 40_000 },
  });
}

const profile = profileWith({ target: TARGET, topology: undefined, productionChanges: { connectionsPerClient: 8, clientInstances: 1 } } as never);
const productionPool = profileWith({ target: TARGET, topology: undefined, productionChanges: { connectionsPerClient: 2, clientInstances: 400 } } as never);
const ids = (a: ReturnType<typeof analyseRun>) => a.flags.map((f) => f.id);

describe('who was the limit (docs/who-was-the-limit.md)', () => {
  it.each(Object.entries(OVER))('row 1: %s over its limit is the generator’s limit, INVALID, whatever the target did', (_name, over) => {
    for (const waits of [{}, WAITED]) {
      const a = analyseRun(run({ ...waits, ...over }, 'broken'), profile);
      expect(a.verdict).toBe('INVALID');
      expect(a.generator!.saturated).toBe(true);
      expect(a.reasons[0]).toMatch(/^the load generator was the limit/);
      // Its measurement is of itself: no saturation of the target is claimed.
      expect(a.saturation).toBeUndefined();
      expect(a.reasons.join('\n')).not.toMatch(/waited for a free connection/);
    }
  });

  it('row 2: a full pool with a healthy generator and the SLO held is a PASS that names the saturation', () => {
    const a = analyseRun(run(WAITED_BRIEFLY, 'held'), profile);
    expect(a.verdict).toBe('PASS');
    expect(a.generator!.saturated).toBe(false);
    expect(a.saturation!.text).toMatch(/^the target saturated at this concurrency: 5,000 requests waited for a free connection \(connections × pipelining = 8, all busy/);
    expect(ids(a)).not.toContain('generator-bottleneck');
  });

  it('row 3: a full pool with a healthy generator and the SLO broken is the target’s FAIL, with the figures', () => {
    const a = analyseRun(run(WAITED, 'broken'), profile);
    expect(a.verdict).toBe('FAIL');
    expect(ids(a)).not.toContain('generator-bottleneck');
    const s = a.saturation!;
    expect(s.slots).toBe(8);
    expect(s.answeredRps).toBe(400);
    // Little's law: 24,000 completions on the wire in 60 s × 20 ms each = 8 in service on average.
    expect(s.concurrency).toBe(8);
    expect(a.reasons.some((r) => r.startsWith('p99'))).toBe(true);
    expect(a.reasons.at(-1)).toBe(s.text);
    expect(s.text).toMatch(/it answered 400 rps of 1,000 asked; send lateness p99 9s/);
  });

  it('rows 4 and 5: short waits are ordinary queueing; the SLO alone decides', () => {
    for (const [slo, verdict] of [
      ['held', 'PASS'],
      ['broken', 'FAIL'],
    ] as const) {
      const a = analyseRun(run(SHORT_WAITS, slo), profile);
      expect(a.verdict).toBe(verdict);
      expect(a.saturation).toBeUndefined();
      expect(a.generator!.saturated).toBe(false);
    }
  });

  it('row 6: a test pool smaller than production’s is a realism warning, never a generator verdict', () => {
    const a = analyseRun(run(WAITED, 'broken'), productionPool);
    expect(a.verdict).toBe('FAIL');
    const flag = a.flags.find((f) => f.id === 'pool-smaller-than-production')!;
    expect(flag.severity).toBe('warn');
    expect(flag.evidence).toBe('8 connection(s) all busy (40,000 requests waited) vs 2 per client × 400 client instances = 800 in production');
    // Production's pool no larger than the test's: no flag.
    expect(ids(analyseRun(run(WAITED, 'broken'), profile))).not.toContain('pool-smaller-than-production');
    // No saturation: no flag, however small the pool.
    expect(ids(analyseRun(run(SHORT_WAITS, 'broken'), productionPool))).not.toContain('pool-smaller-than-production');
  });

  it('sums the slots of every worker thread’s pool', () => {
    const perWorker = [HTTP, { ...HTTP, connections: 4, pipelining: 2 }];
    const a = analyseRun({ ...run(WAITED, 'broken'), driver: { loop: 'open', transport: { ...HTTP, perWorker } } }, profile);
    expect(a.saturation!.slots).toBe(16);
  });
});
