import { describe, expect, it } from 'vitest';
import { evaluateSlo } from '../../src/analysis/slo.ts';
import { HistogramLogReader } from '../../src/recorder/histograms.ts';
import { RunRecorder } from '../../src/recorder/run-recorder.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { makeProfile } from '../helpers/profile.ts';

function planWith(warmup: string) {
  return createSchedule(
    makeProfile({
      name: 'r',
      warmup,
      phases: [{ type: 'steady', rate: 100, duration: '10s' }],
      mix: [
        { kind: 'get', weight: 1 },
        { kind: 'set', weight: 1 },
      ],
      clients: [
        { name: 'web', share: 1 },
        { name: 'batch', rate: 1 },
      ],
    }),
  ).plan;
}

describe('RunRecorder', () => {
  it('measures latency from the intended send time and service time from the actual send', () => {
    const recorder = new RunRecorder(planWith('0s'));
    // Intended at 0, sent 40ms late (generator stall), answered 10ms after the send.
    recorder.sent(0, 40_000, 0);
    recorder.complete(0, 40_000, 50_000, 0, 0, 0);
    expect(recorder.all.latency.maxValue).toBeGreaterThanOrEqual(49_950);
    expect(recorder.serviceTime.maxValue).toBeLessThanOrEqual(10_010);
    expect(recorder.serviceTime.maxValue).toBeGreaterThanOrEqual(9_990);
  });

  it('breaks latency down by kind, client and outcome, and counts errors by reason', () => {
    const recorder = new RunRecorder(planWith('0s'));
    const timeout = recorder.reason('timeout');
    expect(recorder.reason('timeout')).toBe(timeout);
    for (let i = 0; i < 100; i++) {
      const t = i * 10_000;
      recorder.sent(t, t, i % 2);
      recorder.complete(t, t, t + 1000 * (i + 1), i % 2, i < 90 ? 0 : 1, i < 95 ? 0 : timeout);
    }
    expect(recorder.byKind[0]!.ok + recorder.byKind[0]!.failed).toBe(90);
    expect(recorder.byKind[1]!.latency.totalCount).toBe(10);
    expect(recorder.byClient[1]!.latency.totalCount).toBe(50);
    expect(recorder.failed.latency.totalCount).toBe(5);
    expect(recorder.errorCounts[timeout]).toBe(5);
    expect(recorder.ok.latency.maxValue).toBeLessThan(recorder.failed.latency.getValueAtPercentile(1));
  });

  it('keeps warm-up requests out of the totals but in the intervals', () => {
    const recorder = new RunRecorder(planWith('2s'));
    recorder.sent(1_000_000, 1_000_000, 0);
    recorder.complete(1_000_000, 1_000_000, 1_005_000, 0, 0, 0);
    recorder.sent(2_500_000, 2_500_000, 0);
    recorder.complete(2_500_000, 2_500_000, 2_507_000, 0, 0, 0);
    recorder.flush();
    expect(recorder.warmupSent).toBe(1);
    expect(recorder.sentCount).toBe(1);
    expect(recorder.all.latency.totalCount).toBe(1);
    expect(recorder.digest.summary().series.map((i) => [i.tMs, i.warmup, i.ok])).toEqual([
      [0, true, 0],
      [1000, true, 1],
      [2000, false, 1],
    ]);
  });

  it('classes a request by when it was due: one due in the warm-up and sent or failed after it stays the warm-up’s', () => {
    const recorder = new RunRecorder(planWith('2s'));
    // Due at 1.9 s, sent 300 ms late (after the warm-up ended), answered at 2.4 s.
    recorder.sent(1_900_000, 2_200_000, 0);
    recorder.complete(1_900_000, 2_200_000, 2_400_000, 0, 0, 0);
    // Due at 1.95 s, never sent, failed at 2.1 s.
    recorder.complete(1_950_000, -1, 2_100_000, 0, 0, recorder.reason('timeout'));
    // Due at 2.05 s (measured), sent late at 2.3 s.
    recorder.sent(2_050_000, 2_300_000, 0);
    recorder.complete(2_050_000, 2_300_000, 2_350_000, 0, 0, 0);
    recorder.flush();
    expect(recorder.warmupSent).toBe(1);
    expect(recorder.sentCount).toBe(1);
    expect(recorder.notSentCount).toBe(0);
    expect(recorder.all.latency.totalCount).toBe(1);
    expect(recorder.all.latency.maxValue).toBeGreaterThanOrEqual(299_000);
    expect(recorder.failed.latency.totalCount).toBe(0);
  });

  it('samples gauges at each interval boundary and writes a readable HdrHistogram log', () => {
    let log = '';
    const recorder = new RunRecorder(planWith('0s'), { intervalUs: 500_000, hlog: (chunk) => (log += chunk), startTimeMs: 1_700_000_000_000 });
    let inFlight = 0;
    recorder.setGaugeSource(() => ({ inFlight }));
    for (let i = 0; i < 20; i++) {
      inFlight = i;
      const t = i * 100_000;
      recorder.sent(t, t, 0);
      recorder.complete(t, t, t + 2000 + i, 0, 0, 0);
    }
    recorder.flush();
    expect(recorder.digest.summary().series).toHaveLength(4);
    expect(recorder.digest.summary().series.map((i) => i.sent)).toEqual([5, 5, 5, 5]);
    // Gauges are read when the boundary is crossed: here by the request at 1.0s, after inFlight became 10.
    expect(recorder.digest.summary().series[1]!.gauges.inFlight).toBe(10);
    expect(recorder.digest.summary().series[0]!.goodputRps).toBe(10);
    // Each interval: an untagged line (the measured requests) and one per request kind (the same, tagged).
    const reader = new HistogramLogReader(log);
    const totals = new Map<string, { count: number; intervals: number }>();
    for (let h = reader.nextIntervalHistogram(); h; h = reader.nextIntervalHistogram()) {
      const seen = totals.get(h.tag) ?? { count: 0, intervals: 0 };
      totals.set(h.tag, { count: seen.count + h.totalCount, intervals: seen.intervals + 1 });
    }
    expect(Object.fromEntries(totals)).toEqual({ 'NO TAG': { count: 20, intervals: 4 }, [`kind:${planWith('0s').kinds[0]}`]: { count: 20, intervals: 4 } });
    expect(log).toContain('#[Latency unit: microseconds');
  });

  it('judges the SLO on the histograms, counting failures in the tail and in the error rate', () => {
    const recorder = new RunRecorder(planWith('0s'));
    const refused = recorder.reason('refused');
    for (let i = 0; i < 1000; i++) recorder.complete(0, 0, i < 990 ? 1000 : 200_000, 0, 0, i < 990 ? 0 : refused);
    const evidence = {
      latency: ({ kind }: { kind?: string | undefined }) => (kind === 'set' ? recorder.byKind[1]!.latency : recorder.all.latency),
      requests: 1000,
      failed: 10,
    };
    const verdict = evaluateSlo(
      {
        latency: [
          { percentile: 99, max: 2000 },
          { percentile: 99.5, max: 2000 },
          { percentile: 50, max: 1000, kind: 'set' },
        ],
        errorRate: 0.005,
      },
      evidence,
    );
    expect(verdict.checks.map((c) => c.pass)).toEqual([true, false, false, false]);
    expect(verdict.checks[2]!.note).toMatch(/no/);
    expect(verdict.pass).toBe(false);
  });
});
